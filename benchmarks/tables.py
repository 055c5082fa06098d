"""Markdown tables for the benchmarks' reports (README-ready)."""

from __future__ import annotations


def markdown(head: list[str], rows: list[list[str]], right: list[bool]) -> str:
    """A markdown table with padded columns (right-aligned where `right`)."""
    widths = [max(len(x) for x in col) for col in zip(head, *rows, strict=True)]

    def line(cells: list[str]) -> str:
        out = [
            c.rjust(w) if r else c.ljust(w) for c, w, r in zip(cells, widths, right, strict=True)
        ]
        return "| " + " | ".join(out) + " |"

    rule = ["-" * (w + 1) + ":" if r else "-" * (w + 2) for w, r in zip(widths, right, strict=True)]
    return "\n".join([line(head), "|" + "|".join(rule) + "|", *(line(r) for r in rows)])
