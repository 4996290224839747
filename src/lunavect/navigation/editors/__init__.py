"""Sessions in editors: an agent in an editor's integrated terminal, found and shown through lunavect's companion
extension in that editor window (the guide's "Sessions in editors").

The companion (`src/lunavect/companions/vscode`, shipped as package data) registers each window in
lunavect's data folder with the shell process id and name of each of its terminals, and answers requests on a
private unix socket; docs/editor-companion-protocol.md describes the channel for other editors' companions.
"""
