"""Did-you-mean on the command line: a choice (--format, --page) that names the closest ones,
and a path argument checked against the firmware's modules before a command uses it."""

from __future__ import annotations

import shlex
from typing import Any

import click

from ..loader.near_names import close_names, close_paths, did_you_mean
from .options import fail


class NearChoice(click.Choice):
    """click.Choice whose refusal also names the closest choices ("pdff": did you mean 'pdf'?)."""

    def get_invalid_choice_message(self, value: Any, ctx: click.Context | None) -> str:
        message = super().get_invalid_choice_message(value, ctx)
        near = close_names(str(value), [str(c) for c in self.choices])
        return message.removesuffix(".") + did_you_mean(near).replace(";", ",", 1) if near else message


def list_paths_command(where: str, firmware: str | None) -> str:
    """The command that lists every path a path argument may name, for this store and firmware."""
    flag = "--neo4j" if "://" in where else "--db"
    chosen = f" --firmware {shlex.quote(firmware)}" if firmware else ""
    return f"linkgraph query module-paths {flag} {shlex.quote(where)}{chosen}"


def problems_command(where: str, firmware: str | None) -> str:
    """The command that lists every problem a scan recorded, for this store and firmware."""
    flag = "--neo4j" if "://" in where else "--db"
    chosen = f" --firmware {shlex.quote(firmware)}" if firmware else ""
    return f"linkgraph query problems {flag} {shlex.quote(where)}{chosen}"


def require_module(store: Any, firmware_id: str, path: str, listing: str, what: str = "") -> None:
    """Return when *path* names a module of the firmware (its path or a symlink to it); else stop
    (exit 2) saying so, with the closest paths and *listing*, the command that lists them all."""
    if store.query("module", {"firmware": firmware_id, "path": path}):
        return
    known: list[str] = []
    for row in store.query("module-paths", {"firmware": firmware_id}):
        known += [row["path"], *(row["aliases"] or [])]
    near = did_you_mean(close_paths(path, known))
    fail(f"{what}no ELF file {path!r} in this firmware{near} (`{listing}` lists them)")
