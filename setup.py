"""The build's one compiled part; everything else is in pyproject.toml.

``climbrl.envs.doudizhu._fast`` (envs/doudizhu/_fast.c, the observation writer, and
_engine.c, legal plays and the apply; plain C with the CPython API) is the optional compiled
core of the Dou Dizhu environment (climbrl.envs.doudizhu.compiled).
``optional=True``: where it cannot be built (no C compiler or Python headers) the install
goes on without it and the package runs pure Python instead.
"""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "climbrl.envs.doudizhu._fast",
            sources=["envs/doudizhu/_fast.c", "envs/doudizhu/_engine.c"],
            optional=True,
        )
    ]
)
