"""The self-play trainer, the evaluation harness, terminal play and the ``climbrl`` command.

Importing it checks that ``envs`` is climbrl's (:func:`policies.install.check_envs`).
"""

from policies.install import check_envs

check_envs()
