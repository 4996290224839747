"""The VS Code companion as lunavect ships it, and the .vsix the editor installs, built here with zipfile.

A .vsix is a zip of `[Content_Types].xml`, `extension.vsixmanifest` and the extension's files under
`extension/`. It is built at install time rather than shipped built, for one reason: each copy carries the
channel folder of the lunavect that installed it (`extension/lunavect.json`), so the companion and lunavect
meet in the same folder whatever $LUNAVECT_HOME or $XDG_DATA_HOME the editor was started with.
"""

from __future__ import annotations

import json
import zipfile
from dataclasses import dataclass
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path

EXTENSION_ID = "lunavect.lunavect-companion"
# The folder of lunavect.companions that holds the VS Code companion (src/lunavect/companions/vscode in the repository).
SOURCE = "vscode"
# Written into each installed copy: where its windows register (see the module's docstring).
CHANNEL_FILE = "lunavect.json"

_CONTENT_TYPES = """<?xml version="1.0" encoding="utf-8"?>
<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">\
<Default Extension=".json" ContentType="application/json"/>\
<Default Extension=".js" ContentType="application/javascript"/>\
<Default Extension=".md" ContentType="text/markdown"/>\
<Default Extension=".vsixmanifest" ContentType="text/xml"/>\
</Types>
"""


@dataclass(frozen=True)
class Manifest:
    """What the editor reads from the companion's package.json."""

    publisher: str
    name: str
    version: str
    display_name: str
    description: str
    engine: str

    @property
    def extension_id(self) -> str:
        return f"{self.publisher}.{self.name}"


def source() -> Traversable:
    return resources.files("lunavect.companions").joinpath(SOURCE)


def manifest() -> Manifest:
    data = json.loads(source().joinpath("package.json").read_text(encoding="utf-8"))
    return Manifest(
        publisher=data["publisher"],
        name=data["name"],
        version=data["version"],
        display_name=data.get("displayName", data["name"]),
        description=data.get("description", ""),
        engine=data["engines"]["vscode"],
    )


def _files(folder: Traversable, prefix: str = "") -> list[tuple[str, Traversable]]:
    """The extension's files, its own tests left out."""
    found: list[tuple[str, Traversable]] = []
    for entry in sorted(folder.iterdir(), key=lambda e: e.name):
        if entry.name.startswith(".") or entry.name in ("test", "node_modules", "__pycache__"):
            continue
        if entry.is_dir():
            found.extend(_files(entry, f"{prefix}{entry.name}/"))
        elif entry.name.endswith((".js", ".json", ".md")):
            found.append((f"{prefix}{entry.name}", entry))
    return found


def _vsix_manifest(m: Manifest) -> str:
    # Imported here: xml.sax.saxutils imports urllib.request, and with it http.client and OpenSSL, which the
    # collector (it imports this module to offer the companion) would otherwise load at every start.
    from xml.sax.saxutils import escape, quoteattr

    return f"""<?xml version="1.0" encoding="utf-8"?>
<PackageManifest Version="2.0.0" xmlns="http://schemas.microsoft.com/developer/vsx-schema/2011" \
xmlns:d="http://schemas.microsoft.com/developer/vsx-schema-design/2011">
  <Metadata>
    <Identity Language="en-US" Id={quoteattr(m.name)} Version={quoteattr(m.version)} Publisher={quoteattr(m.publisher)}/>
    <DisplayName>{escape(m.display_name)}</DisplayName>
    <Description xml:space="preserve">{escape(m.description)}</Description>
    <Categories>Other</Categories>
    <Properties>
      <Property Id="Microsoft.VisualStudio.Code.Engine" Value={quoteattr(m.engine)}/>
      <Property Id="Microsoft.VisualStudio.Code.ExtensionKind" Value="workspace"/>
    </Properties>
  </Metadata>
  <Installation>
    <InstallationTarget Id="Microsoft.VisualStudio.Code"/>
  </Installation>
  <Dependencies/>
  <Assets>
    <Asset Type="Microsoft.VisualStudio.Code.Manifest" Path="extension/package.json" Addressable="true"/>
  </Assets>
</PackageManifest>
"""


def build_vsix(target: Path, channel: Path) -> Path:
    """Write the companion's .vsix to `target`, its windows to register in `channel`."""
    m = manifest()
    with zipfile.ZipFile(target, "w", compression=zipfile.ZIP_DEFLATED) as vsix:
        vsix.writestr("[Content_Types].xml", _CONTENT_TYPES)
        vsix.writestr("extension.vsixmanifest", _vsix_manifest(m))
        for name, entry in _files(source()):
            vsix.writestr(f"extension/{name}", entry.read_bytes())
        vsix.writestr(f"extension/{CHANNEL_FILE}", json.dumps({"channel": str(channel)}))
    return target
