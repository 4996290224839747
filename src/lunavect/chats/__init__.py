"""Chat files of one record per line, read incrementally into evidence and usage: what Gemini CLI and its fork
Qwen Code share (`lines`: a line's shape, the fold and its evidence; `source`: the collector's source over a
client's chat files). Each client's package names its files and reads its own lines.

A wing of its own just below the clients: it records usage (`lunavect.usage`) and counters (`lunavect.store`),
which the evidence wing below them may not import.
"""
