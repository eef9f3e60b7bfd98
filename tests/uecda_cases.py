"""UECda standard rules (the ``uecda`` preset), written as data like ``daifugo_cases.py``.

Five seats, one joker. Seat 0 leads unless ``leader`` says; the seats play in index order (a
set-up from hands keeps index order). ``why`` gives the ruling (docs/rules.md, "UECda
standard rules"); ``rules`` overrides switches of the preset.
"""

# filler hands for seats a case does not look at (no 3 of spades, no 3 of diamonds)
FILL = ["4c 5c", "6c 7c", "Kd Ad", "Kc Ac"]

UECDA_CASES = [
    # ---------------------------------------------------------------- runs and sets
    dict(
        name="joker_extends_run_below_3",
        why="The joker may extend a run past either end, below the 3 too.",
        hands=["JK 3s 4s 9h", *FILL],
        legal=["JK=below 3s 4s", "3s 4s JK=5s"],
    ),
    dict(
        name="joker_extends_run_above_2",
        why="The joker may stand above the 2 at the top of a run.",
        hands=["As 2s JK 9h", *FILL],
        legal=["As 2s JK=above", "JK=Ks As 2s"],
    ),
    dict(
        name="run_above_2_cannot_be_beaten",
        why="A run ending above the 2 has nothing higher: only pass answers it.",
        hands=["As 2s JK 9h", "Th Jh Qh 4d", "6c 7c", "9c Tc", "Jc Qc"],
        moves=["As 2s JK=above"],
        legal_exact=["pass"],
    ),
    dict(
        name="run_below_3_beaten_by_a_run_above_its_top",
        why="A run is beaten by one of the same length whose lowest card is above its highest.",
        hands=["JK 3s 4s 9h", "5h 6h 7h 4d", "6c 7c", "9c Tc", "Jc Qc"],
        moves=["JK=below 3s 4s"],
        legal=["5h 6h 7h"],
    ),
    dict(
        name="five_of_a_kind_with_the_joker",
        why="A group may have 5 cards: the four of a rank and the joker.",
        hands=["9s 9h 9d 9c JK 3h", *FILL],
        legal=["9s 9h 9d 9c JK", "9s JK=9h", "9s 9h 9d JK=9c"],
    ),
    # ---------------------------------------------------------------- revolution
    dict(
        name="run_of_five_revolts",
        why="A run of 5 or more reverses the order until the round ends.",
        hands=["3h 4h 5h 6h 7h 9s", *FILL],
        moves=["3h 4h 5h 6h 7h"],
        expect={"revolution": True, "reversed": True},
    ),
    dict(
        name="run_of_five_with_the_joker_revolts",
        why="The joker counts towards the run's length.",
        hands=["3h JK 5h 6h 7h 9s", *FILL],
        moves=["3h JK=4h 5h 6h 7h"],
        expect={"revolution": True},
    ),
    dict(
        name="run_of_four_does_not_revolt",
        why="A run needs 5 cards to revolt (a group 4).",
        hands=["3h 4h 5h 6h 9s", *FILL],
        moves=["3h 4h 5h 6h"],
        expect={"revolution": False},
    ),
    dict(
        name="second_revolution_restores",
        why="A second revolution restores the normal order.",
        hands=["3h 4h 5h 6h 7h Ts Th Td Tc Ks", *FILL],
        moves=["3h 4h 5h 6h 7h", "pass", "pass", "pass", "pass", "Ts Th Td Tc"],
        expect={"revolution": False, "reversed": False},
    ),
    # ---------------------------------------------------------------- eight cut
    dict(
        name="eight_in_a_run_cuts",
        why="Any play holding a real 8 clears the pile; its player leads again.",
        hands=["7s 8s 9s 4h", *FILL],
        moves=["7s 8s 9s"],
        expect={"pile": None, "current": 0},
    ),
    dict(
        name="joker_standing_for_an_8_does_not_cut",
        why="A joker standing for an 8 is no real 8: no cut.",
        hands=["7s JK 9s 4h", *FILL],
        moves=["7s JK=8s 9s"],
        expect={"pile": "7s JK=8s 9s", "current": 1},
    ),
    dict(
        name="lone_joker_never_cuts",
        why="A lone joker is no 8.",
        hands=["JK 4h", *FILL],
        moves=["JK"],
        expect={"pile": "JK", "current": 1},
    ),
    # ---------------------------------------------------------------- lock
    dict(
        name="joker_locks_as_the_suit_it_stands_for",
        why="The lock reads the joker as the suit it stands for: 6s6h then 7s JK=7h locks sh.",
        hands=["6s 6h 4d", "7s JK 5d", "9s 9h 9d 6d", "9c Tc", "Jc Qc"],
        moves=["6s 6h", "7s JK=7h"],
        expect={"lock": "sh"},
        legal=["9s 9h"],
        illegal=["9s 9d", "9h 9d"],
    ),
    dict(
        name="joker_standing_for_another_suit_does_not_lock",
        why="7s JK=7d shows spades and diamonds: not the suits of 6s 6h, so no lock.",
        hands=["6s 6h 4d", "7s JK 5d", "9s 9h 9d 6d", "9c Tc", "Jc Qc"],
        moves=["6s 6h", "7s JK=7d"],
        expect={"lock": None},
        legal=["9s 9h", "9h 9d"],
    ),
    dict(
        name="locked_set_reply_with_the_joker_names_a_locked_suit",
        why="Under a lock on sh a joker may fill in only for a locked suit.",
        hands=["6s 6h 4d", "7s 7h 5d", "9s JK 6d", "9c Tc", "Jc Qc"],
        moves=["6s 6h", "7s 7h"],
        legal=["9s JK=9h"],
        illegal=["9s JK=9d", "9s JK=9c"],
    ),
    dict(
        name="lone_joker_beats_a_locked_single_and_lifts_the_lock",
        why="The lone joker beats any single under a lock; it starts no lock and lifts one.",
        hands=["5h 4d", "6h 5d", "JK 6d", "9c Tc", "Jc Qc"],
        moves=["5h", "6h"],
        legal=["JK"],
    ),
    dict(
        name="lone_joker_starts_no_lock",
        why="Two plays in a row 'of one suit' where the second is the lone joker: no lock.",
        hands=["5h 4d", "6h 5d", "JK 6d", "9c Tc", "Jc Qc"],
        moves=["5h", "6h", "JK"],
        expect={"lock": None, "pile": "JK"},
    ),
    dict(
        name="spade_three_beats_lone_joker_under_revolution",
        why="Only the 3 of spades beats the lone joker, under a revolution too, and it clears.",
        hands=["9s 9h 9d 9c 4h 5c", "JK 6d", "3s 7d", "Tc Jc", "Qc Kc"],
        moves=["9s 9h 9d 9c", "pass", "pass", "pass", "pass", "4h", "JK"],
        legal_exact=["pass", "3s"],
    ),
    dict(
        name="spade_three_return_clears_and_leads",
        why="The 3 of spades on the lone joker clears the pile; its player leads.",
        hands=["9s 9h 9d 9c 4h 5c", "JK 6d", "3s 7d", "Tc Jc", "Qc Kc"],
        moves=["9s 9h 9d 9c", "pass", "pass", "pass", "pass", "4h", "JK", "3s"],
        expect={"pile": None, "current": 2, "revolution": True},
    ),
    # ---------------------------------------------------------------- passing and leading
    dict(
        name="leader_after_a_finished_last_player",
        why="When the last player has finished, the next seat in turn order with cards leads.",
        hands=["2s", "4h 5h", "6c 7c", "9c Tc", "Jc Qc"],
        moves=["2s", "pass", "pass", "pass", "pass"],
        expect={"pile": None, "current": 1, "places": [0, None, None, None, None]},
    ),
    dict(
        name="pile_clears_when_the_others_passed",
        why="The pile clears once every other seat still in has passed; its player leads.",
        hands=["5h 6d", "4h 5d", "6c 7c", "9c Tc", "Jc Qc"],
        moves=["5h", "pass", "pass", "pass", "pass"],
        expect={"pile": None, "current": 0},
    ),
    dict(
        name="pass_on_an_empty_pile",
        why="A pass on an empty pile is a pass: the next seat leads on the empty pile.",
        hands=["5h 6d", "4h 5d", "6c 7c", "9c Tc", "Jc Qc"],
        moves=["pass"],
        expect={"pile": None, "current": 1},
        legal=["pass", "4h"],
    ),
    dict(
        name="pass_on_an_empty_pile_is_final_until_the_pile_clears",
        why="Seat 0 passed on the empty pile: after seat 1 leads, seat 0 is skipped.",
        hands=["5h 6d", "4h 5d", "6c 7c", "9c Tc", "Jc Qc"],
        moves=["pass", "4h", "pass", "pass", "pass"],
        expect={"pile": None, "current": 1},
    ),
    dict(
        name="everyone_passes_on_an_empty_pile",
        why="When every seat still in passed on the empty pile, the lead returns to its seat.",
        hands=["5h 6d", "4h 5d", "6c 7c", "9c Tc", "Jc Qc"],
        moves=["pass"] * 5,
        expect={"pile": None, "current": 0, "phase": "play"},
    ),
    dict(
        name="stall_guard_after_20_passes",
        why="After 20 passes in a row the seats still in are placed at random: the round ends.",
        rules={"rounds": 1},
        hands=["5h 6d", "4h 5d", "6c 7c", "9c Tc", "Jc Qc"],
        moves=["pass"] * 20,
        expect={"phase": "over"},
    ),
    dict(
        name="no_stall_at_19_passes",
        why="19 passes in a row are not yet the stall guard.",
        rules={"rounds": 1},
        hands=["5h 6d", "4h 5d", "6c 7c", "9c Tc", "Jc Qc"],
        moves=["pass"] * 19,
        expect={"phase": "play"},
    ),
    # ---------------------------------------------------------------- exchange
    dict(
        name="exchange_gives_joker_first_then_rank_then_spades",
        why="The bottom seats' gifts: the joker first, then rank, ties spades > hearts > "
            "diamonds > clubs (2s over 2h; As over Ac).",
        titles=[0, 1, 2, 3, 4],
        hands=["3d 4d", "5d 6d", "7d 8d", "Ac As 3c", "2h JK 2s 4c"],
        expect={"received": {0: "2s JK", 1: "As"}, "gave": {4: "2s JK", 3: "As"},
                "phase": "exchange", "current": 0},
    ),
    dict(
        name="diamond_three_leads_after_the_exchange",
        why="The 3 of diamonds' holder leads every round, found after the exchange (the top "
            "seat gave it away).",
        titles=[0, 1, 2, 3, 4],
        hands=["3d 4d", "5d 6d", "7d 8d", "Ac As 3c", "2h JK 2s 4c"],
        moves=["give 3d", "give 4d", "give 5d"],
        expect={"phase": "play", "current": 4},
    ),
]
