"""How to play, on the TV: every game's pages in every language, each page fitting its screen
at reading size with a picture the game's own view draws; the pages turned at any station;
reached from the box's menu, and offered before a new game's first move, left with one press."""

from __future__ import annotations

import threading

import pygame
import pytest

from controller.app.howto import NEXT, OK, PREVIOUS, SKIP, HowToSnapshot, Pages
from controller.app.menu import BACK, Activity, Menu
from controller.games import GAMES, texts
from hardware.sim.station import SimulatedStation
from tests.conftest import record_texts, wait_until

CASES = [(game, lang) for game in sorted(GAMES) for lang in texts.LANGUAGES]


@pytest.mark.parametrize("game, lang", CASES)
def test_every_game_has_its_pages_in_every_language(game, lang):
    pages = texts.how_to_play(game, lang)
    assert pages and len(pages) == len(texts.how_to_play(game, "en"))
    prefix = "howto_" + game.replace("-", "")
    for page in pages:
        assert page.title.strip() and page.text.strip() and page.picture["kind"]
        assert not page.title.startswith(prefix) and not page.text.startswith(prefix)   # a key, not words


def test_an_unknown_game_has_no_pages():
    with pytest.raises(KeyError, match="no pages for 'chess'"):
        texts.how_to_play("chess", "en")


@pytest.mark.parametrize("game, lang", CASES)
def test_every_page_fits_its_screen_at_28_px_or_more(game, lang, monkeypatch):
    """Read from the sofa: every word at 28 px or more, the words inside their column and
    overlapping nothing, the picture in its own part, the keys at the foot."""
    from display.howto_view import FOOTER, PICTURE, TEXT, HowToView
    pygame.init()
    surface = pygame.Surface((1920, 1080))
    screen = surface.get_rect()
    view = HowToView(lang)
    pages = texts.how_to_play(game, lang)
    drawn = record_texts(monkeypatch)
    switches = tuple(o.name for o in GAMES[game].options if o.is_switch)    # pages say a variant that is on
    for n, variants in [(n, v) for n in range(len(pages)) for v in ((), switches)]:
        drawn.clear()
        view.draw(surface, HowToSnapshot("howto", game, n, len(pages), before_game=n % 2 == 0, variants=variants))
        small = [(words, size) for words, size, _ in drawn if size < 28 and str(words).strip()]
        assert not small, (game, lang, n, small)
        laid = view.laid_out
        words = [rect for what, rect in laid if what in ("title", "words")]
        assert words and all(TEXT.contains(rect) for rect in words), (game, lang, n)
        others = [rect for what, rect in laid if what not in ("title", "words")]
        for i, rect in enumerate(words + others):
            assert screen.contains(rect), (game, lang, n, rect)
            for other in (words + others)[i + 1:]:
                assert not rect.colliderect(other), (game, lang, n, rect, other)
        assert ("picture", PICTURE) in laid and all(FOOTER.contains(r) for w, r in laid if w.startswith("keys"))


@pytest.mark.parametrize("game", sorted(GAMES))
def test_every_picture_is_drawn_by_the_games_view_from_real_components(game):
    """No placeholder: each page's picture fills its part with the game's own drawing (many
    colours, a good part of it covered), of cards, missions and packages the game has."""
    from display.draw import FELT
    from display.howto_view import PICTURE, HowToView
    pygame.init()
    rules = GAMES[game]
    for n, page in enumerate(texts.how_to_play(game, "en")):
        _check_components(rules, page.picture)
        surface = pygame.Surface((1920, 1080))
        surface.fill(FELT)
        HowToView("en").draw(surface, HowToSnapshot("howto", game, n, 9, before_game=True))
        pixels = [tuple(surface.get_at((x, y)))[:3] for x in range(PICTURE.left, PICTURE.right, 9)
                  for y in range(PICTURE.top, PICTURE.bottom, 9)]
        covered = sum(1 for p in pixels if p != FELT) / len(pixels)
        assert covered > 0.05 and len(set(pixels)) > 8, (game, n, page.picture, covered, len(set(pixels)))


def _check_components(rules, picture):
    kind = picture["kind"]
    if rules.name == "partout" and kind == "cards":
        assert all(card in rules.card_names() for row in picture["rows"] for card in row)
    if rules.name == "tadika" and kind in ("hands", "swap"):
        cards = picture.get("cards") or [card for row in picture["rows"] for card in row]
        assert set(cards) <= set(rules.card_names())
    if rules.name == "teamplay":
        from controller.games.teamplay import MISSION_CARDS, NUMBER_CARDS
        missions = picture.get("missions", []) + [picture[k] for k in ("mission", "general") if k in picture]
        assert set(missions) <= set(MISSION_CARDS)
        assert set(picture.get("cards", []) + picture.get("bank", [])) <= set(NUMBER_CARDS)
    if rules.name == "team-up":
        from controller.games.teamup import CARD_NUMBERS, DATA
        assert set(picture.get("cards", [])) <= set(CARD_NUMBERS)
        assert picture.get("packages", 0) <= len(DATA["puzzle"]["line"])
    if rules.name == "crazy-kick":
        from controller.games.crazykick import load_deck
        names = {card.player for card in load_deck("schmidt")}
        assert set(picture.get("players", [])) | {picture.get("player", "Tim")} <= names


def test_the_pages_turn_with_the_bottom_row_and_the_top_left_leaves_at_once():
    pages = Pages("teamplay", before_game=True)
    last = pages.pages - 1
    assert pages.page == 0 and not pages.press(PREVIOUS) and pages.page == 0     # not before the first
    assert not pages.press(NEXT) and not pages.press(OK) and pages.page == 2
    assert not pages.press(PREVIOUS) and pages.page == 1
    while pages.page < last:
        assert not pages.press(NEXT)
    assert pages.press(OK) and pages.done                                     # OK on the last page: play
    regular = Pages("teamplay", before_game=True)
    assert regular.press(SKIP) and regular.page == 0                           # one press, at once


class KeyboardScreen:
    """A screen whose keyboard gives these inputs, one batch a poll (a demo's --seat)."""

    def __init__(self, *batches) -> None:
        self.batches = list(batches)
        self.shown: list = []
        self.polls = 0

    def poll(self):
        self.polls += 1
        return self.batches.pop(0) if self.batches else []

    def show(self, snapshot) -> None:
        self.shown.append(snapshot.page)

    def wants_redraw(self) -> bool:
        return False


def test_the_keyboards_station_keys_turn_the_pages_and_esc_quits():
    import queue
    from controller.app.howto import show_pages
    screen = KeyboardScreen([("button", NEXT)], [("card", 0), ("button", NEXT)], [("button", PREVIOUS)],
                            [("button", SKIP)])
    assert show_pages(screen, queue.Queue(), "partout", before_game=True) is True
    assert screen.shown == [0, 1, 2, 1]
    assert show_pages(KeyboardScreen([("button", NEXT)], [("quit",)]), queue.Queue(), "partout",
                      before_game=True) is False
    with pytest.raises(TimeoutError):
        show_pages(KeyboardScreen(), queue.Queue(), "partout", before_game=True, deadline=0.0)


def test_the_table_hears_what_is_no_press_while_the_pages_are_shown():
    """An unplugged station is the table's news even before the first move; the host panel's
    menu button held stops the table, pages or not; a tap is no move."""
    import queue
    from controller.app.play import offer_how_to_play
    from controller.table.runner import TableRunner
    from controller.table.table import Table
    from hardware.events import PanelEvent, StationLost, TagEvent
    table = Table(GAMES["partout"], config={"players": 3, "mode": "physical"}, seed=1, stations=["a", "b", "c"])
    events: queue.Queue = queue.Queue()
    runner = TableRunner(table, events, {}, screen=KeyboardScreen())
    events.put(TagEvent("b", 1, "04A1B2C3D4E5F6", "partout:red5", 0, 0))
    events.put(StationLost("c", "/dev/ttyACM2", "unplugged", 0))
    events.put(PanelEvent("menu_held", 0))
    assert offer_how_to_play(runner, "partout", timeout=5) is True and runner.stopped
    assert table.paused_for == (2,) and not table.actions


def test_the_menu_reaches_the_pages_of_every_game():
    from tests.test_box import choose
    menu = Menu(stations=2)
    assert choose(menu, "menu_how_to_play") is None and menu.page == "howto"
    assert [line.params["game"] for line in menu.lines()[1]] == sorted(g.title for g in GAMES.values())
    assert choose(menu, GAMES["team-up"].title) == Activity("howto", game="team-up")
    assert menu.page == "main"
    choose(menu, "menu_how_to_play")
    menu.press(BACK)
    assert menu.page == "main"


def shown_snapshots(monkeypatch) -> list:
    """Every snapshot a headless screen is given from now on."""
    from display.app import Screen
    shown: list = []
    original = Screen.show

    def show(self, snapshot):
        shown.append(snapshot)
        original(self, snapshot)
    monkeypatch.setattr(Screen, "show", show)
    return shown


def test_the_box_shows_a_games_pages_until_a_station_leaves_them(tmp_path, monkeypatch):
    from controller.app.box import launch
    monkeypatch.setenv("SPIELTISCH_DATA", str(tmp_path))
    shown = shown_snapshots(monkeypatch)
    with SimulatedStation("sim-a") as station:
        def person():
            station.wait_for(lambda s: bool(s.sent("WHO")), timeout=5)
            wait_until(lambda: shown, what="the first page")
            for button in (NEXT, NEXT, PREVIOUS, BACK):
                count = len(shown)
                station.press(button)
                if button != BACK:
                    wait_until(lambda: len(shown) > count, what="the page turned")
        thread = threading.Thread(target=person, daemon=True)
        thread.start()
        launch(Activity("howto", game="tadika"), [station.port], lang="de", headless=True, fullscreen=False)
        thread.join(5)
    assert [s.page for s in shown] == [0, 1, 2, 1]
    assert all(isinstance(s, HowToSnapshot) and s.which == "tadika" and not s.before_game for s in shown)


def test_a_new_game_offers_its_pages_before_the_first_move_and_one_press_plays(tmp_path, monkeypatch):
    """Partout with real cards, three players: the pages come first; the first seat's top-left
    button leaves them (and is no move, so no refusal); then the trump number is named."""
    from controller.app.play import run_table
    from controller.table import LED_REFUSED
    from controller.table.eventlog import EventLog
    monkeypatch.setenv("SPIELTISCH_DATA", str(tmp_path))
    shown = shown_snapshots(monkeypatch)
    stations = [SimulatedStation(f"seat-{i + 1}").start() for i in range(3)]
    try:
        def people():
            wait_until(lambda: shown, timeout=10, what="the pages")
            stations[0].press(SKIP)                          # a family that knows Partout
            wait_until(lambda: any(not isinstance(s, HowToSnapshot) for s in shown), what="the game")
            stations[1].press(OK)                            # the first after the dealer names the number
        thread = threading.Thread(target=people, daemon=True)
        thread.start()
        with pytest.raises(TimeoutError):                    # the test stops the table here
            run_table("partout", ports=[s.port for s in stations], players=3, names=[], virtual=False, seed=1,
                      new=True, lang="fr", fullscreen=False, headless=True, timeout=4, how_to_play=True)
        thread.join(5)
        refused = [s for s in stations if any(c[0] == "LED" and c[1][0] == LED_REFUSED for c in s.commands)]
    finally:
        for s in stations:
            s.close()
    assert isinstance(shown[0], HowToSnapshot) and shown[0].which == "partout" and shown[0].before_game
    first_game = next(i for i, s in enumerate(shown) if not isinstance(s, HowToSnapshot))
    assert all(isinstance(s, HowToSnapshot) for s in shown[:first_game])
    assert not any(isinstance(s, HowToSnapshot) for s in shown[first_game:])
    assert not refused                                       # the press that left the pages was no move
    with EventLog(tmp_path / "spieltisch.db") as store:
        actions = store.load(store.unfinished_ids("partout")[0]).actions
    assert [a["type"] for a in actions] == ["trump_number"]


def test_a_resumed_game_goes_on_without_the_pages(tmp_path, monkeypatch):
    from controller.app.play import run_table
    monkeypatch.setenv("SPIELTISCH_DATA", str(tmp_path))
    shown = shown_snapshots(monkeypatch)
    with SimulatedStation("s1") as a, SimulatedStation("s2") as b, SimulatedStation("s3") as c:
        ports = [a.port, b.port, c.port]
        for new in (True, False):                              # a new game (pages skipped), then resumed
            presser = threading.Thread(target=lambda: (wait_until(lambda: shown, timeout=10), a.press(SKIP)),
                                       daemon=True)
            presser.start()
            with pytest.raises(TimeoutError):
                run_table("partout", ports=ports, players=3, names=[], virtual=False, seed=1, new=new, lang="en",
                          fullscreen=False, headless=True, timeout=3, how_to_play=True)
            presser.join(5)
            if new:
                pages_before = sum(isinstance(s, HowToSnapshot) for s in shown)
                shown.clear()
    assert pages_before >= 1
    assert shown and not any(isinstance(s, HowToSnapshot) for s in shown)


def test_keys_after_the_pages_and_a_cards_key_before_a_game_are_the_games_not_lost():
    """Issue 40: a keyboard game lost the first key. A key typed after the pages were left
    (in the same breath as the one that left them) is the game's; before a game a card's key
    leaves the pages and is played; from the menu the pages are all there is."""
    import queue
    from controller.app.howto import show_pages
    handed: list = []
    assert show_pages(KeyboardScreen([("button", SKIP), ("card", 2), ("button", NEXT)]), queue.Queue(), "partout",
                      before_game=True, keys=handed.append) is True
    assert handed == [("card", 2), ("button", NEXT)]
    handed.clear()
    screen = KeyboardScreen([("button", NEXT)], [("card", 0)])
    assert show_pages(screen, queue.Queue(), "tadika", before_game=True, keys=handed.append) is True
    assert handed == [("card", 0)] and screen.shown == [0, 1]
    handed.clear()
    # from the menu a card's key is nobody's: the pages stay. Shown by the loop going on
    # after it: left only once the screen has been polled twice more (no time involved)
    screen = KeyboardScreen([("card", 0)])
    assert show_pages(screen, queue.Queue(), "tadika", before_game=False, keys=handed.append,
                      until=lambda: screen.polls >= 3) is True
    assert handed == [] and screen.polls == 3 and not screen.batches


def test_the_pages_before_a_game_say_the_variant_it_plays():
    """Crazy Kick's handicap is not the book's rule: the pages offered before a match say
    whether it is on (the aim: the book's 5 goals, or each team's own aim), as the match
    plays it: an old config with neither ``handicap`` nor ``book_goals`` plays it."""
    import queue
    from controller.app.play import offer_how_to_play
    from controller.table.runner import TableRunner
    from controller.table.table import Table

    class Recording(KeyboardScreen):
        def show(self, snapshot) -> None:
            super().show(snapshot)
            self.variants = snapshot.variants

    for config, variants in (({"players": 3, "handicap": False}, ()), ({"players": 3, "handicap": True}, ("handicap",)),
                             ({"players": 3}, ("handicap",))):
        table = Table(GAMES["crazy-kick"], config=config, seed=1, stations=["a", "b", "c"])
        screen = Recording([("button", SKIP)])
        assert offer_how_to_play(TableRunner(table, queue.Queue(), {}, screen=screen), "crazy-kick", timeout=5)
        assert screen.variants == variants
        words = texts.how_to_play("crazy-kick", "en", screen.variants)[0].text
        assert ("the lone player needs 3 goals" in words) is bool(variants)


def test_partout_pages_say_the_three_player_game_and_the_specials_without_value():
    """The book: "jeder Spieler der Reihenfolge nach abwechselnd Karten ausspielt, bis von
    jedem Spieler 2 Karten in der Mitte einen Stich bilden … Somit sind bei 10 ausgeteilten
    Karten 5 Stiche möglich"; "Zusatzpunkte … nach der Tabelle für „3 Teams“"; the Dungeon,
    the Mathematician and the Alchemist: "Selbst hat … keine Werthöhe"; the Mathematician's
    trump "gilt bereits im ausgespielten Stich und für die restlichen Stiche der Spielrunde".
    The rules deal that, and the pages say it in every language."""
    from controller.games.partout import setup_for
    three = setup_for(3)
    assert (three.cards_per_trick, three.tricks, three.scoring_teams, three.hand_size) == (2, 5, 3, 10)
    said = {"en": ("until each has laid 2 cards", "the highest of the 6", "5 tricks", "“3 teams” row",
                   "no value themselves", "to the end of the round"),
            "de": ("bis von jedem Spieler 2 Karten", "Die höchste der 6", "5 Stiche", "Tabelle für „3 Teams“",
                   "keine Werthöhe", "für die restlichen Stiche der Spielrunde"),
            "fr": ("chacun ait posé 2 cartes", "la plus forte des 6", "5 plis", "« 3 équipes »",
                   "n’ont pas de valeur elles-mêmes", "jusqu’à la fin de la manche"),
            "it": ("ciascuno ha posato 2 carte", "la più alta delle 6", "5 prese", "«3 squadre»",
                   "non hanno valore in sé", "fino alla fine della mano")}
    for lang, phrases in said.items():
        words = " ".join(page.text for page in texts.how_to_play("partout", lang))
        assert all(p in words for p in phrases), (lang, [p for p in phrases if p not in words])


def test_teamplay_pages_say_the_mission_exchange_and_the_first_round_without_the_hand_limit():
    """The book: "Bei gerader Spieleranzahl hat jeder Spieler einmalig die Möglichkeit seine
    Auftragskarte abzuwerfen. Er bekommt dann eine neue Auftragskarte, die er behalten muss"
    and "muss zunächst das Handkartenlimit überprüfen (entfällt in der ersten Runde)". The
    rules do both; the pages say both in every language."""
    from controller.games import teamplay as tp
    rules = GAMES["teamplay"]
    even = rules.new_game({"players": 4, "mode": "virtual"}, 1)
    assert any(isinstance(a, tp.KeepMission) and a.exchange for a in rules.legal_actions(even, even.to_act))
    said = {"en": ("once put theirs back and get a new one, which they must keep", "(not in the first round)"),
            "de": ("einmalig die Möglichkeit, seine Auftragskarte abzuwerfen", "(entfällt in der ersten Runde)"),
            "fr": ("une seule fois défausser la sienne et en recevoir une nouvelle, qu’il doit garder",
                   "(pas au premier tour)"),
            "it": ("una sola volta scartare la sua e riceverne una nuova, che deve tenere", "(non nel primo giro)")}
    for lang, phrases in said.items():
        words = " ".join(page.text for page in texts.how_to_play("teamplay", lang))
        assert all(p in words for p in phrases), (lang, [p for p in phrases if p not in words])


def test_team_ups_pages_say_the_puzzle_the_menu_offers_and_the_face_down_pile_of_a_challenge():
    """The book's "Kopfnuss": "Wenn die Karten in der Reihenfolge nach den Nummern in der
    linken oberen Ecke geordnet werden, hat man eine Kartenabfolge, mit welcher eine Palette
    perfekt beladen werden kann. Doch das ist trotzdem nicht einfach." The menu offers it
    (``puzzle``); the pages say what it is, and that a challenge's pile lies face down,
    whoever plays it ("Alle verwendeten Karten werden auf einmal umgedreht und bilden so den
    Stapel"), and another team ("So kann auch ein anderes Team herausgefordert werden") does
    not know its order. It said the pile lay face down when another team played it, as if
    it lay face up for one's own."""
    rules = GAMES["team-up"]
    assert "puzzle" in [o.name for o in rules.options]
    said = {"en": ("Kopfnuss", "1 to 36", "loaded perfectly", "The pile lies face down; another team does not know"),
            "de": ("Kopfnuss", "von 1 bis 36", "perfekt beladen", "Der Stapel liegt verdeckt; ein anderes Team kennt"),
            "fr": ("casse-tête", "de 1 à 36", "palette parfaite", "La pioche est face cachée ; une autre équipe n’en"),
            "it": ("rompicapo", "da 1 a 36", "alla perfezione", "Il mazzo è coperto; un’altra squadra non ne")}
    for lang, phrases in said.items():
        words = " ".join(page.text for page in texts.how_to_play("team-up", lang))
        assert all(p in words for p in phrases), (lang, [p for p in phrases if p not in words])


@pytest.mark.parametrize("lang", texts.LANGUAGES)
def test_crazy_kicks_pages_tell_the_ball_out_by_what_a_seat_shows_in_a_match(lang):
    """The seat panels of a match show no soft-key labels (the how-to page alone draws
    them): a page that says the top buttons read "out?" points at nothing. The page says
    what a seat does show, the table's question on the seats' lines (ck_stall_hint), and
    the top button that then answers it."""
    words = " ".join(page.text for page in texts.how_to_play("crazy-kick", lang))
    label = texts.text(lang, "ck_key_ball_out")
    assert label not in words, (lang, label)
    assert label.rstrip("? ").lower() in words.lower()          # the ball out is still told
