"""assay's Python API: ``import assay``; see orchestration/api.py and the README's "Python" section."""

from orchestration import api as _api
from orchestration.api import *  # noqa: F403  (the API's names, as its __all__ lists them)

__all__ = _api.__all__
