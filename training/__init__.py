"""The self-play trainer (:mod:`climbrl.training.dmc`), its configs and run folders, the
evaluation harness (:mod:`climbrl.training.evaluate`) and the export of CPU players
(:mod:`climbrl.training.export`)."""
