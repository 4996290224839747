"""Session files of one record per line, read incrementally into evidence and usage: what the clients that write
them share (`file_read`: the read, the fold and the meta evidence every such client's reader uses, Pi's and Copilot
CLI's among them; `lines`: the chat lines Gemini CLI and its fork Qwen Code share, their fold and evidence;
`source`: the collector's source over a client's session files). Each client's package names its files and reads
its own lines.

A wing of its own just below the clients: it records usage (`lunavect.usage`) and counters (`lunavect.store`),
which the evidence wing below them may not import.
"""
