"""Where people play the CPUs: the table server (:mod:`climbrl.play.server`, ``climbrl
serve``) with its browser page (``page/``: HTML, CSS and JavaScript, no build step), and a
match at the terminal (:mod:`climbrl.play.terminal`, ``climbrl play``)."""
