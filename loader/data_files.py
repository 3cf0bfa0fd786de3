"""Reading linkgraph's own YAML data tables (licence classes and knowledge, signatures, names).

libyaml's loader when PyYAML has it (ten times faster on the name table, some 700 KiB), else
PyYAML's own. Only for linkgraph's packaged data; users' files (overrides) keep their own reading,
with its error messages.
"""

from __future__ import annotations

from importlib import resources
from typing import Any


def load_yaml(package: str, name: str) -> Any:
    """The YAML document ``data/<name>`` of ``package`` (e.g. ``linkgraph.loader.identify``)."""
    import yaml

    text = (resources.files(package) / "data" / name).read_text(encoding="utf-8")
    return yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
