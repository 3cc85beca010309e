# SPDX-License-Identifier: MIT
"""A package for the launch checks of tests/gpu/sites.sh: its module
pageable_loop runs as `python -m sitespkg.pageable_loop`, as a script
through torchrun, and as a script that changes directory."""
