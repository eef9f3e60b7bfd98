"""Our players in the UECda arena (the UEC computer Daihinmin championship's TCP protocol,
version 20070): the table codec (:mod:`.tables`), the framing (:mod:`.wire`), a client that
seats any player of the registry (:mod:`.client`, ``climbrl uecda play``) and a server of
our own (:mod:`.server`, ``climbrl uecda serve``). docs/uecda.md describes the protocol."""
