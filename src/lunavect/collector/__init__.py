"""The collector, the one engine per machine: its tick, its process's life, what wakes it, its log, the snapshot
it writes, and what `lunavect doctor` reads of it.

Importing this package imports nothing else: front ends use `collector.process` (is one running, start one)
without loading the engine behind `collector.tick`.
"""
