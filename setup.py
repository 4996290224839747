"""Only what pyproject.toml cannot say: the editor companions live in the repository's own `editors/` folder
(plain JavaScript, not Python) and ship inside the package as `lunavect.companions`, which
`lunavect editors install` builds into the editor's extension."""

from setuptools import find_packages, setup

setup(
    packages=[*find_packages("src"), "lunavect.companions"],
    package_dir={"": "src", "lunavect.companions": "editors"},
)
