"""The Dagster resources the stages are given: the settings (with the home's lock for runs Dagster launches
itself) and the progress bars of ``assay run``."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import dagster as dg

from assets import settings as plain
from assets.lock import lock_for_run
from assets.progress import Progress

__all__ = ["AssaySettings", "Progress", "resource_from_env"]


class AssaySettings(dg.ConfigurableResource, plain.Settings):
    """The settings (assets/settings.py) as the resource named ``assay``."""

    @contextlib.contextmanager
    def yield_for_execution(self, context: dg.InitResourceContext) -> Iterator[AssaySettings]:
        """Set up for a Dagster run: a run Dagster launched itself (the daemon, the web UI) takes the home's
        lock for its duration, shared when it holds only shard stages (assets/lock.py); inside
        ``assay run``, which holds it already, this is a no-op."""
        run = context.run
        if run is None:  # a resource built outside a run
            yield self
            return
        # The stages the run holds: its asset selection, else the steps it executes (an asset job's steps
        # are its assets: a job on another executor builds this resource in each step's own process), else
        # the job's name.
        if run.asset_selection:
            names = frozenset(k.to_user_string() for k in run.asset_selection)
        elif run.step_keys_to_execute:
            names = frozenset(run.step_keys_to_execute)
        else:
            names = frozenset({run.job_name.removeprefix("assay_")})
        command = f"Dagster run {run.run_id} of {run.job_name}"
        with lock_for_run(self.home_path, names, command=command, wait_s=self.lock_wait_s):
            yield self


def resource_from_env(environ: dict[str, str] | None = None) -> AssaySettings:
    """The resource from ``ASSAY_<FIELD>`` variables (assets/settings.py :func:`settings_from_env`)."""
    return plain.settings_from_env(environ, AssaySettings)
