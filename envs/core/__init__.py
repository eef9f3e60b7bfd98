"""Machinery shared by every climbrl game: bit helpers, action catalogs, observation layouts,
deal codes, checks of user input (:mod:`.checks`) and the PettingZoo adapter. Nothing here
knows the rules of a particular game.

Only :mod:`climbrl.envs.core.aec` imports PettingZoo; the rest is safe for the pure engines.
"""
