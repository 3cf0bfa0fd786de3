"""The JSON report's sections in their order (docs/report.md), named apart from the code that writes them,
so that a command checks a ``--sections`` list without importing every writer."""

SECTIONS = (
    "modules",
    "licence_coverage",
    "dependencies",
    "dlopen",
    "link_maps",
    "bindings",
    "unresolved",
    "duplicates",
    "problems",
    "kernel_links",
    "licence_findings",
    "source_check",
)
