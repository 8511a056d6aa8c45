"""Cards that just work: enrollment (the session, and `spieltisch enroll` at a simulated
station with the screen), records that name a card only for a table holding the key, and
what a table does with a card from another table or another deck."""

from __future__ import annotations

import json
import threading
import time

import pytest

from controller.app.enroll import Enrollment
from controller.games import find_game
from controller.games.core import IllegalAction
from controller.table.cards import CardKeys, CardResolver, card_token, parse_text
from controller.table.eventlog import EventLog
from hardware.sim.station import SimulatedStation


def uid_for(i: int) -> str:
    return f"04{i:012X}"


# -- the session ---------------------------------------------------------------------------------

def test_a_tag_bound_to_another_card_is_refused_and_changes_nothing():
    session = Enrollment("partout", {"04AA": ("tadika", "blue5")})
    first = session.card
    assert session.tap("04aa", None) is None
    assert session.note.key == "enroll_tag_taken" and session.note.refusal
    assert session.note.params == {"game": "Tadika", "card": "blue5", "take": first} and session.index == 0
    assert session.tap("04BB", "partout:red5") is None                 # its text names another card
    assert session.note.key == "enroll_tag_says" and session.index == 0
    assert session.tap("04BB", f"partout:{first}") == ("04BB", first)  # the card it names is the one asked for


def test_an_interrupted_enrollment_goes_on_at_the_first_card_without_a_tag():
    deck = find_game("teamplay").card_names()
    assert len(deck) == 64 and deck[:2] == ["red1-1", "red1-2"]
    bound = {uid_for(i): ("teamplay", deck[i]) for i in range(10)}
    session = Enrollment("teamplay", bound)
    assert session.index == 10 and session.card == deck[10]
    again = Enrollment("teamplay", bound, again=True)
    assert again.index == 0
    assert again.tap(uid_for(3), None) == (uid_for(3), deck[0])        # its old tag may be reused afresh


def test_decks_of_every_game_with_cards():
    sizes = {name: len(find_game(name).card_names()) for name in ("partout", "teamplay", "tadika", "team-up")}
    assert sizes["partout"] == 42 and sizes["teamplay"] == 64 and sizes["team-up"] == 36 and sizes["tadika"] > 40
    with pytest.raises(IllegalAction):
        Enrollment("crazy-kick", {})                                    # played on the buttons


# -- records that keep their secret ----------------------------------------------------------------

def test_a_record_names_the_card_only_for_a_table_with_the_key(tmp_path):
    keys = CardKeys.load(tmp_path)
    record = keys.record("partout", "king", "04A1B2C3D4E5F6")
    assert record.startswith("st1:partout:") and "king" not in record   # a phone learns the game only
    assert (tmp_path / "card-keys.json").stat().st_mode & 0o777 == 0o600
    assert parse_text(record, "04a1b2c3d4e5f6", keys) == ("partout", "king")
    with pytest.raises(IllegalAction) as caught:                          # another table: no key
        parse_text(record, "04A1B2C3D4E5F6", CardKeys.load(tmp_path / "other"))
    assert caught.value.key == "card_key_unknown"
    with pytest.raises(IllegalAction):                                    # copied onto another tag
        parse_text(record, "04FFFFFFFFFFFF", keys)
    assert parse_text("partout:red5", "04", None) == ("partout", "red5")  # written by hand: plain
    assert parse_text("https://example.com", "04", None) is None


def test_the_key_travels_to_another_table(tmp_path):
    here, there = CardKeys.load(tmp_path / "here"), CardKeys.load(tmp_path / "there")
    record = here.record("tadika", "blue5", "04C0FFEE000001")
    here.export(tmp_path / "key.json")
    assert there.import_from(tmp_path / "key.json") == 1
    assert there.card_of("tadika", record.split(":")[2], "04C0FFEE000001") == "blue5"
    assert there.import_from(tmp_path / "key.json") == 0                   # already known
    (tmp_path / "bad.json").write_text("{")
    with pytest.raises(IllegalAction) as caught:
        there.import_from(tmp_path / "bad.json")
    assert caught.value.key == "card_keys_unreadable"


def test_the_table_reads_records_plain_texts_and_uids(tmp_path):
    store = EventLog(tmp_path / "spieltisch.db")
    keys = CardKeys.load(tmp_path)
    resolver = CardResolver("partout", store)
    assert resolver.resolve("04A1", keys.record("partout", "queen", "04A1")) == "queen"
    assert resolver.resolve("04A2", "partout:red5") == "red5"
    with pytest.raises(IllegalAction) as caught:
        resolver.resolve("04A3", keys.record("tadika", "blue5", "04A3"))
    assert caught.value.key == "tag_other_game"
    assert str(caught.value) == "This card belongs to Tadika, not to the game on the table."
    foreign = CardKeys.load(tmp_path / "elsewhere").record("partout", "king", "04A4")
    with pytest.raises(IllegalAction) as caught:
        resolver.resolve("04A4", foreign)
    assert caught.value.key == "card_key_unknown"
    store.register_card("04A4", "partout", "king")                         # enrolled here by its UID too
    assert resolver.resolve("04A4", foreign) == "king"
    store.close()


def test_the_registry_decides_for_an_enrolled_sticker_whatever_it_carries(tmp_path):
    """Issue 29: an enrolled UID always wins. A phone's plain text on the enrolled king, and
    a signed record that disagrees with the registry (the deck enrolled again without
    --write, or another table's enrollment), both lose to the registry."""
    store = EventLog(tmp_path / "spieltisch.db")
    keys = CardKeys.load(tmp_path)
    resolver = CardResolver("partout", store)
    store.register_card("04A1", "partout", "king")
    assert resolver.resolve("04A1", "partout:red5") == "king"
    assert resolver.resolve("04A1", keys.record("partout", "queen", "04A1")) == "king"
    assert resolver.resolve("04A1", "st1:nosuchgame:x") == "king"          # its text is not even read
    store.close()


def test_plain_text_never_names_a_card_another_sticker_is_enrolled_as(tmp_path):
    store = EventLog(tmp_path / "spieltisch.db")
    keys = CardKeys.load(tmp_path)
    resolver = CardResolver("partout", store)
    store.register_card("04A1", "partout", "king")
    with pytest.raises(IllegalAction) as caught:
        resolver.resolve("04B2", "partout:king")
    assert caught.value.key == "tag_text_enrolled_elsewhere" and caught.value.params == {"card": "king"}
    assert resolver.resolve("04B2", "partout:red5") == "red5"              # a card not enrolled: plain text names it
    # a signed record names its card on an unenrolled sticker: it cannot be made without the key
    assert resolver.resolve("04B3", keys.record("partout", "king", "04B3")) == "king"
    store.close()


def test_a_record_no_table_wrote_is_refused_with_a_reason():
    for text in ("st1:nosuchgame:x", "st1:partout:not-a-token", "st1:partout:ÄÄÄÄÄÄÄÄÄÄÄÄÄÄÄÄ", "st1:"):
        with pytest.raises(IllegalAction) as caught:
            parse_text(text, "04A1", None)
        assert caught.value.key == "tag_record_unreadable", text


# -- a sticker's text is anyone's input: fuzzed ------------------------------------------------------

def _firmware_pn532():
    import importlib.util
    from pathlib import Path
    path = Path(__file__).resolve().parent.parent / "firmware" / "pn532.py"
    spec = importlib.util.spec_from_file_location("_fw_pn532_for_cards", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _sticker_texts():
    from hypothesis import strategies as st
    from controller.games import GAMES
    words = st.one_of(st.text(max_size=24), st.sampled_from(sorted(GAMES) + ["", "st1", "PARTOUT", " partout "]))
    tokens = st.one_of(st.text(max_size=20), st.text("abcdefghijklmnopqrstuvwxyz234567", min_size=16, max_size=16))
    return st.one_of(
        st.none(), st.text(),
        st.builds(lambda g, t: f"st1:{g}:{t}", words, tokens),
        st.builds(lambda g, c: f"{g}:{c}", words, st.one_of(st.text(max_size=12), st.sampled_from(["king", "red5"]))))


def test_no_sticker_text_escapes_as_anything_but_a_refusal(tmp_path):
    """Issue 29: whatever a phone writes on a sticker, the table, the enrollment and the
    self-test get a card, nothing, or a refusal with its reason; never another exception."""
    from hypothesis import HealthCheck, given, settings
    from controller.app.enroll import Enrollment
    from controller.app.selftest import SelfTest
    store = EventLog(tmp_path / "spieltisch.db")
    keys = CardKeys.load(tmp_path)
    keys.import_from(_other_tables_key(tmp_path))             # this table's key and another's
    store.register_card("04000000000001", "partout", "king")
    tables = [CardResolver(game, store, keys) for game in ("partout", "teamplay", "crazy-kick")]

    @settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(text=_sticker_texts(), uid=st_uids())
    def check(text, uid):
        for resolver in tables:
            try:
                assert isinstance(resolver.resolve(uid, text), str)
            except IllegalAction:
                pass
        try:
            said = parse_text(text, uid, keys)
            assert said is None or said[0] in ("partout", "teamplay", "tadika", "team-up", "crazy-kick")
        except IllegalAction:
            pass
        Enrollment("partout", store.all_cards(), keys=keys).tap(uid, text)
        SelfTest("builder", "1.1.0").tag(uid, text, keys, store.all_cards())
    check()
    store.close()


def _other_tables_key(folder):
    CardKeys.load(folder / "elsewhere").export(folder / "theirs.json")
    return folder / "theirs.json"


def st_uids():
    from hypothesis import strategies as st
    return st.one_of(st.sampled_from(["04000000000001", "04A1B2C3D4E5F6"]),
                     st.binary(min_size=4, max_size=10).map(lambda b: b.hex().upper()))


def test_no_sticker_memory_escapes_as_anything_but_a_refusal(tmp_path):
    """Any bytes a sticker's memory holds (a phone writes any text record, any NDEF, or
    garbage): the station's and the host reader's NDEF decoders give a text or nothing, and
    the table a card or a refusal."""
    from hypothesis import HealthCheck, given, settings, strategies as st
    from hardware.pn532 import ndef_text as host_ndef_text
    firmware = _firmware_pn532()
    store = EventLog(tmp_path / "spieltisch.db")
    keys = CardKeys.load(tmp_path)
    keys.own  # noqa: B018 - this table's key made now
    resolver = CardResolver("partout", store, keys)

    def record(payload: bytes) -> bytes:                  # a text record around any payload
        body = bytes([0xD1, 0x01, len(payload) & 0xFF]) + b"T" + payload
        return bytes([0x03, len(body) & 0xFF]) + body + b"\xfe"

    written = _sticker_texts().filter(bool).map(lambda t: record(b"\x02en" + t.encode("utf-8", "replace")[:200]))
    memories = st.one_of(st.binary(max_size=300), st.binary(max_size=200).map(record),
                         st.binary(max_size=40).map(lambda b: record(b"\x02en" + b)), written)

    @settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(memory=memories)
    def check(memory):
        texts = {host_ndef_text(memory), firmware.ndef_text(memory)}
        assert all(t is None or isinstance(t, str) for t in texts)
        for text in texts:
            try:
                resolver.resolve("04A1B2C3D4E5F6", text)
            except IllegalAction:
                pass
    check()
    store.close()


def test_card_tokens_do_not_repeat_across_cards_and_tags():
    key = bytes(range(16))
    tokens = {card_token(key, "teamplay", card, uid_for(i)) for i, card in enumerate(find_game("teamplay").card_names())}
    assert len(tokens) == 64


# -- spieltisch enroll at a station ----------------------------------------------------------------

def tap_deck(station, deck, *, twice_first=True, write=False):
    station.wait_for(lambda s: bool(s.sent("WHO")), timeout=5)
    for i, _ in enumerate(deck):
        time.sleep(0.02)                             # a quick hand, not a flood
        station.tap(uid_for(i))
        if write:                                    # as a person does: the next card once this one is written
            station.wait_for(lambda s: uid_for(i) in s.written, timeout=5)
        if i == 0 and twice_first:
            station.tap(uid_for(0))                  # the same tag again: it is the card just learned


@pytest.mark.parametrize("write", [False, True])
def test_enroll_a_whole_deck_at_a_station_with_the_screen(tmp_path, write):
    from controller.app.enroll import enroll
    deck = find_game("team-up").card_names()
    with SimulatedStation("learner") as station:
        thread = threading.Thread(target=tap_deck, args=(station, deck), kwargs={"write": write}, daemon=True)
        thread.start()
        result = enroll("team-up", station.port, write=write, headless=True, data_dir=tmp_path, timeout=30,
                        screenshot=str(tmp_path / "done.png"))
        thread.join(5)
        if write:
            assert len(station.written) == 36 and all(t.startswith("st1:team-up:") for t in station.written.values())
    assert result == {"deck": "team-up", "enrolled": 36, "cards": 36, "finished": True}
    with EventLog(tmp_path / "spieltisch.db") as store:
        assert sorted(store.cards("team-up").values(), key=int) == deck
    assert (tmp_path / "done.png").stat().st_size > 0
    if write:                                        # each record names its card for this table
        keys = CardKeys.load(tmp_path)
        for i, card in enumerate(deck):
            assert parse_text(station.written[uid_for(i)], uid_for(i), keys) == ("team-up", card)


def phone_writes(tag, page: int, data: bytes) -> bytes:
    """A phone's NFC app ("NFC Tools"): it lists the sticker and writes a page, without PWD_AUTH."""
    from hardware.sim import ntag
    tag.activate()
    return tag.command(bytes([ntag.WRITE, page]) + data)


def test_enroll_write_protects_each_sticker_a_phone_cannot_rewrite_it_and_the_table_can(tmp_path):
    """Issue 29: `enroll --write` write-protects what it wrote (NTAG21x password protection,
    the password made from the card key and the sticker's UID). A phone reads the record,
    and cannot write it, the password or the protection; enrolled again with --write, the
    table opens each sticker with its password and writes it again."""
    from controller.app.enroll import enroll
    from hardware.sim import ntag
    from hardware.pn532 import ndef_text
    deck = find_game("team-up").card_names()
    with SimulatedStation("learner") as station:
        for time_ in ("first", "again"):             # enrolled, then enrolled again (--again)
            thread = threading.Thread(target=tap_deck, args=(station, deck), kwargs={"write": True}, daemon=True)
            station.written.clear()
            thread.start()
            result = enroll("team-up", station.port, write=True, again=True, headless=True, data_dir=tmp_path,
                            timeout=60)
            thread.join(5)
            assert result["finished"] and len(station.written) == len(deck)
            keys = CardKeys.load(tmp_path)
            for i, card in enumerate(deck):
                tag = station.tags[uid_for(i)]
                assert ndef_text(tag.user_memory()) == keys.record("team-up", card, uid_for(i)) and tag.protected
                assert tag.page(tag.cfg + 2) == keys.tag_password(uid_for(i))[:4]
                assert tag.authenticated == (time_ == "again")     # the second time it had to be opened
        for i, card in enumerate(deck):
            tag = station.tags[uid_for(i)]
            assert phone_writes(tag, 4, b"\x03\x00\xfe\x00") == ntag.NAK              # the record
            assert phone_writes(tag, tag.cfg, b"\x04\x00\x00\xff") == ntag.NAK        # AUTH0 back to "none"
            assert phone_writes(tag, tag.cfg + 2, b"\xff\xff\xff\xff") == ntag.NAK    # the password
            tag.activate()
            assert tag.command(bytes([ntag.READ, 4])) == tag.user_memory()[:16]       # reading: anyone
            assert ndef_text(tag.user_memory()) == keys.record("team-up", card, uid_for(i))


def test_the_table_rewrites_a_protected_sticker_and_a_foreign_password_is_refused(tmp_path):
    """At the station, through the link: a protected sticker written again with this
    table's password takes the new record; with another password it is refused (WROTE fail
    auth) and keeps what it carries; another table's password in this table's hands (an
    imported key) opens it, and this table's protects it from then on."""
    from hardware.events import TagWritten
    from hardware.link import StationLink
    from hardware.pn532 import ndef_text
    import queue
    mine, theirs = bytes.fromhex("a1b2c3d4e5f6"), bytes.fromhex("0102030405aa")
    events: queue.Queue = queue.Queue()
    with SimulatedStation("learner") as station, StationLink(station.port, events) as link:
        def write(text, password, opening=None):
            link.write_tag("04A1", text, password, opening)
            while True:
                event = events.get(timeout=5)
                if isinstance(event, TagWritten):
                    return event.ok, event.reason
        assert write("st1:partout:aaaaaaaaaaaaaaaa", mine) == (True, "")
        assert write("st1:partout:bbbbbbbbbbbbbbbb", mine) == (True, "")
        tag = station.tags["04A1"]
        assert ndef_text(tag.user_memory()) == "st1:partout:bbbbbbbbbbbbbbbb"
        assert write("st1:partout:cccccccccccccccc", theirs) == (False, "auth")
        assert ndef_text(tag.user_memory()) == "st1:partout:bbbbbbbbbbbbbbbb"
        assert write("st1:partout:dddddddddddddddd", theirs, opening=mine) == (True, "")
        assert tag.page(tag.cfg + 2) == theirs[:4] and ndef_text(tag.user_memory()) == "st1:partout:dddddddddddddddd"


def test_a_sticker_the_table_cannot_protect_is_said_so_at_enrollment():
    session = Enrollment("partout", {}, write=True)
    first = session.card
    uid, card = session.tap("04AA", None)
    session.bound_now(uid, card)
    session.written(uid, False, "auth")
    assert session.note.key == "enroll_write_locked" and session.note.refusal and session.index == 0
    session.bound_now(uid, card)
    session.written(uid, False, "kind")
    assert session.note.key == "enroll_write_kind" and session.card == first
    session.bound_now(uid, card)
    session.written(uid, False, "write")                # the card moved: tap it again
    assert session.note.key == "enroll_write_failed" and session.note.params["reason"] == "write"


def test_enroll_write_refuses_a_station_whose_firmware_would_leave_the_record_open(tmp_path, monkeypatch):
    """Firmware before 1.2 writes the record and says ok without protecting it: `enroll
    --write` refuses such a station with what to do, before a single card."""
    from controller.app.enroll import enroll, protects_what_it_writes
    assert protects_what_it_writes("1.2.0") and protects_what_it_writes("1.10") and protects_what_it_writes("sim-1.0")
    assert not protects_what_it_writes("1.1.0") and not protects_what_it_writes(None)
    assert not protects_what_it_writes("pn532-1.6")
    monkeypatch.setattr("hardware.sim.station.FIRMWARE", "1.1.0")
    with SimulatedStation("old") as station:
        with pytest.raises(IllegalAction) as caught:
            enroll("partout", station.port, write=True, headless=True, data_dir=tmp_path, timeout=5)
    assert caught.value.key == "enroll_firmware_old" and caught.value.params == {"firmware": "1.1.0"}


def test_enroll_goes_on_where_it_stopped(tmp_path):
    from controller.app.enroll import enroll
    deck = find_game("partout").card_names()
    with SimulatedStation("learner") as station:
        thread = threading.Thread(target=tap_deck, args=(station, deck[:5]), kwargs={"twice_first": False},
                                  daemon=True)
        thread.start()
        first = enroll("partout", station.port, headless=True, data_dir=tmp_path, timeout=3)
        thread.join(5)
    assert first["enrolled"] == 5 and not first["finished"]
    with SimulatedStation("learner") as station:
        def rest():
            station.wait_for(lambda s: bool(s.sent("WHO")), timeout=5)
            station.tap(uid_for(0))                  # an old tag: it is black1, refused for the 6th card
            for i in range(5, len(deck)):
                station.tap(uid_for(i))
        thread = threading.Thread(target=rest, daemon=True)
        thread.start()
        second = enroll("partout", station.port, headless=True, data_dir=tmp_path, timeout=30)
        thread.join(5)
        assert ("LED", ("ff0000", "300")) in station.commands
    assert second == {"deck": "partout", "enrolled": 42, "cards": 42, "finished": True}


def test_the_enroll_command_refuses_a_deck_without_cards(tmp_path, capsys):
    from controller.app.cli import main
    assert main(["--data-dir", str(tmp_path), "enroll", "crazy-kick", "--port", "/dev/null", "--headless"]) != 0
    err = capsys.readouterr().err
    assert "Crazy Kick has no cards to enroll" in err and "Traceback" not in err


def test_the_key_commands(tmp_path, capsys):
    from controller.app.cli import main
    assert main(["--data-dir", str(tmp_path / "a"), "cards", "key", "export", str(tmp_path / "k.json")]) == 0
    assert main(["--data-dir", str(tmp_path / "b"), "cards", "key", "import", str(tmp_path / "k.json")]) == 0
    a = json.loads((tmp_path / "a" / "card-keys.json").read_text())["keys"]
    b = json.loads((tmp_path / "b" / "card-keys.json").read_text())["keys"]
    assert a[0] in b and len(b) == 2


# -- the station self-test ----------------------------------------------------------------------

def test_the_self_test_walks_buttons_led_buzzer_and_reader(tmp_path):
    from controller.app.selftest import run_selftest
    with SimulatedStation("builder") as station:
        def person():
            station.wait_for(lambda s: len(s.sent("LED")) >= 2, timeout=5)   # the LED has stepped on once
            for button in range(6):
                time.sleep(0.02)
                station.press(button)
            station.tap("04C0FFEE000001", "partout:red5")
        thread = threading.Thread(target=person, daemon=True)
        thread.start()
        result = run_selftest(station.port, headless=True, data_dir=tmp_path, timeout=20,
                              screenshot=str(tmp_path / "selftest.png"))
        thread.join(5)
        leds = [f[0] for f in station.sent("LED")]
        assert leds[:2] == ["ff0000", "00ff00"] and len(station.sent("BUZZ")) >= 2
    assert result == {"station": "builder", "buttons": [True] * 6, "card": "selftest_card_named", "passed": True,
                      "lost": False}
    assert (tmp_path / "selftest.png").stat().st_size > 0


def test_the_self_test_says_when_the_table_does_not_know_a_card():
    from controller.app.selftest import SelfTest
    from controller.games import texts
    test = SelfTest("builder", "1.1.0")
    test.tag("04AB", None, None, {})
    assert test.card == ("selftest_card_unknown", {"uid": "04AB"}) and not test.done
    test.tag("04AB", None, None, {"04AB": ("teamplay", "red3-2")})
    assert texts.render("de", *test.card) == "Das ist Rot 3 aus Teamplay (Tag 04AB)."


def test_a_new_cards_text_is_read_at_once_not_at_the_next_poll():
    """In simulated time (deterministic): the firmware's reader, driven as main.py drives it,
    lists a card and reads its text (one FAST_READ) well within one poll period, and no tap waits
    longer than a poll period for the reader to look."""
    from controller.bench.cards import _config_value, station_taps
    poll_ms = _config_value("READER_POLL_MS", 60)
    taps = station_taps(40)
    assert max(wait for _, wait, _ in taps) <= poll_ms + 5
    reads = sorted(read for _, _, read in taps)
    assert reads[len(reads) // 2] < poll_ms * 0.75, reads


def test_a_bare_reader_cannot_write_records_and_says_so(tmp_path):
    from controller.app.enroll import enroll
    from hardware.sim.pn532_hsu import SimulatedPN532
    chip = SimulatedPN532("A10K3ZQ1", by_id_dir=tmp_path).start()
    try:
        with pytest.raises(IllegalAction) as caught:
            enroll("partout", "pn532:" + chip.port, write=True, headless=True, data_dir=tmp_path / "data", timeout=5)
        assert caught.value.key == "enroll_cannot_write"
    finally:
        chip.close()
