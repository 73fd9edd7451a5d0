"""What several commands share: the home a reading command opens, and values printed as JSON or as
they are."""

from __future__ import annotations

from datetime import date, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from orchestration.home import Home


def existing_home(given: str | None) -> Home:
    """The home a reading command looks at; one that is a file says so."""
    from orchestration.home import Home

    home = Home.resolve(given)
    home.require_directory()
    return home


def json_default(value: Any) -> Any:
    if isinstance(value, datetime | date):
        return value.isoformat()
    if isinstance(value, Path):
        return str(value)
    return str(value)


def as_is(text: str) -> str:
    return text
