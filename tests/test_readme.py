"""The README lists the commands `mirforge --help` has, and names none it lacks."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import typer

from mirforge.cli import app

README = Path(__file__).resolve().parent.parent / "README.md"


def cli_commands() -> set[str]:
    """Every command a user types: top-level commands and each group's sub-commands (`export hf`)."""
    found: set[str] = set()

    def walk(group: Any, prefix: str) -> None:
        for name, command in group.commands.items():
            if hasattr(command, "commands"):  # a group (typer's own click)
                walk(command, f"{prefix}{name} ")
            else:
                found.add(f"{prefix}{name}")

    walk(typer.main.get_command(app), "")
    return found


def test_readme_table_lists_the_cli_commands() -> None:
    text = README.read_text()
    section = text.split("## Commands", 1)[1].split("\n## ", 1)[0]
    table = set(re.findall(r"^\| `mirforge ([a-z0-9 -]+)` \|", section, re.M))
    assert table == cli_commands()


def test_readme_names_no_command_that_does_not_exist() -> None:
    commands = cli_commands()
    words = {c.split()[0] for c in commands}
    for line in README.read_text().splitlines():
        for match in re.finditer(r"(?<![\w/.-])mirforge ([a-z][a-z0-9-]*)(?: ([a-z][a-z0-9-]*))?", line):
            first, second = match.groups()
            if first not in words:
                continue  # prose such as "mirforge generates"
            if f"{first} {second}" in commands or first in commands:
                continue
            raise AssertionError(f"README names `mirforge {first} {second}`, which --help does not list: {line}")
