"""``python -m sandbox.lab [jupyter lab arguments]``: JupyterLab with the sandbox's settings.

The dashboards are widgets: a notebook saved after a live run and reopened with a new kernel
shows them again only if JupyterLab saved their state with it (*Settings > Save Widget State
Automatically*).  The package turns that on by default through a settings override in
JupyterLab's application settings folder (``share/jupyter/lab/settings/overrides.d/``).  A built
wheel installs the file there; an editable install (``pip install -e``, what the README runs)
installs no data files, so this command puts it there when it is missing, then starts
JupyterLab with the arguments given.  A ``--LabApp.app_settings_dir=...`` among them is the
folder it writes to; else JupyterLab's own (``$JUPYTERLAB_DIR/settings``, by default the
environment's ``share/jupyter/lab/settings``).  The user can still turn the setting off.
"""

from __future__ import annotations

import importlib
import sys
from importlib import resources
from pathlib import Path

NAME = "npu-runtime-sandbox.json"


def settings_override() -> str:
    """The override's text, as the package ships it (sandbox/widgets/jupyterlab-settings/)."""
    return resources.files("sandbox.widgets").joinpath("jupyterlab-settings").joinpath(NAME).read_text(encoding="utf-8")


def app_settings_dir(argv: list[str]) -> Path:
    """Where JupyterLab reads its application settings, for these command-line arguments."""
    for arg in argv:
        if arg.startswith("--LabApp.app_settings_dir="):
            return Path(arg.split("=", 1)[1])
    commands = importlib.import_module("jupyterlab.commands")  # the lab extra's: not needed to import sandbox
    return Path(commands.get_app_dir()) / "settings"


def ensure_settings(folder: Path) -> Path | None:
    """Write the override into ``folder``/overrides.d unless it is there already; returns its path,
    or None (with a line on stderr) where the folder cannot be written."""
    path = folder / "overrides.d" / NAME
    text = settings_override()
    if path.is_file() and path.read_text(encoding="utf-8") == text:
        return path
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    except OSError as exc:
        print(
            f"sandbox.lab: cannot write {path} ({exc.strerror}); turn on Settings > Save Widget State "
            "Automatically yourself, or saved notebooks lose their dashboards",
            file=sys.stderr,
        )
        return None
    return path


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    ensure_settings(app_settings_dir(args))
    labapp = importlib.import_module("jupyterlab.labapp")
    labapp.LabApp.launch_instance(argv=args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
