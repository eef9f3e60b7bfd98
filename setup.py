"""The build's compiled parts; everything else is in pyproject.toml.

``climbrl.envs.doudizhu._fast`` (envs/doudizhu/_fast.c, the observation writer, and
_engine.c, legal plays and the apply; plain C with the CPython API) is the optional compiled
core of the Dou Dizhu environment (climbrl.envs.doudizhu.compiled);
``climbrl.envs.daifugo._fast`` (envs/daifugo/_fast.c, the seat observer) that of the
Daifugo, President and UECda environments (climbrl.envs.daifugo.compiled). Both include
envs/core/_compiled.h, what the two share (reading the writer spec, the buffer written, the
seat observer's buffer, the module's types).
``optional=True``: where one cannot be built (no C compiler or Python headers) the install
goes on without it and the package runs its pure-Python code instead.
"""

from setuptools import Extension, setup

SHARED = "envs/core"
"""the folder of the header both extensions include"""
SHARED_HEADER = f"{SHARED}/_compiled.h"

setup(
    ext_modules=[
        Extension(
            "climbrl.envs.doudizhu._fast",
            sources=["envs/doudizhu/_fast.c", "envs/doudizhu/_engine.c"],
            depends=["envs/doudizhu/_fast.h", SHARED_HEADER],
            include_dirs=[SHARED],
            optional=True,
        ),
        Extension(
            "climbrl.envs.daifugo._fast",
            sources=["envs/daifugo/_fast.c"],
            depends=[SHARED_HEADER],
            include_dirs=[SHARED],
            optional=True,
        ),
    ]
)
