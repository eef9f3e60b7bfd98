"""The build's compiled parts; everything else is in pyproject.toml.

``climbrl.envs.doudizhu._fast`` (envs/doudizhu/_fast.c, the observation writer, and
_engine.c, legal plays and the apply; plain C with the CPython API) is the optional compiled
core of the Dou Dizhu environment (climbrl.envs.doudizhu.compiled);
``climbrl.envs.daifugo._fast`` (envs/daifugo/_fast.c, the seat observer) that of the
Daifugo, President and UECda environments (climbrl.envs.daifugo.compiled).
``optional=True``: where one cannot be built (no C compiler or Python headers) the install
goes on without it and the package runs its pure-Python code instead.
"""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "climbrl.envs.doudizhu._fast",
            sources=["envs/doudizhu/_fast.c", "envs/doudizhu/_engine.c"],
            optional=True,
        ),
        Extension(
            "climbrl.envs.daifugo._fast",
            sources=["envs/daifugo/_fast.c"],
            optional=True,
        ),
    ]
)
