"""What outside libraries need from us, one small module per library.

Each module here exists for one library and imports it (install the matching
extra first; see ``pyproject.toml`` and ``docs/integrations.md``, which has one
runnable recipe per library). Nothing else in ``envs`` imports these modules.
"""
