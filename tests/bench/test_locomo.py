import datetime

import pytest

from bench.locomo import EvidenceStats, Metrics, conversation_load, parse_evidence, parse_range


@pytest.mark.parametrize(
    ("raw", "ids", "counts"),
    [
        ("D1:3", {"D1:3"}, {"split": 0, "repaired": 0, "dropped": 0}),
        ("D8:6; D9:17", {"D8:6", "D9:17"}, {"split": 1, "repaired": 0, "dropped": 0}),
        ("D9:1 D4:4 D4:6", {"D9:1", "D4:4", "D4:6"}, {"split": 1, "repaired": 0, "dropped": 0}),
        ("D26:14, D26:34", {"D26:14", "D26:34"}, {"split": 1, "repaired": 0, "dropped": 0}),
        ("D:11:26", {"D11:26"}, {"split": 0, "repaired": 1, "dropped": 0}),
        ("D", set(), {"split": 0, "repaired": 0, "dropped": 1}),
        (["D1:3", "D"], {"D1:3"}, {"split": 0, "repaired": 0, "dropped": 1}),
    ],
)
def test_malformed_evidence_ids_are_split_repaired_or_dropped_and_counted(raw, ids, counts):
    stats = EvidenceStats()

    assert parse_evidence(raw, stats) == ids
    assert {k: v for k, v in stats.as_dict().items() if k != "entries"} == counts


def test_conversation_ranges_accept_spans_and_lists():
    assert parse_range("5-9") == [5, 6, 7, 8, 9]
    assert parse_range("0,2,4-5") == [0, 2, 4, 5]


CONVERSATION = {
    "sample_id": "conv-x",
    "conversation": {
        "speaker_a": "Ann",
        "speaker_b": "Bob",
        "session_1_date_time": "1:56 pm on 8 May, 2023",
        "session_1": [
            {"speaker": "Ann", "dia_id": "D1:1", "text": "I adopted a cat."},
            {
                "speaker": "Bob",
                "dia_id": "D1:2",
                "text": "Look at this!",
                "blip_caption": "a photo of a kayak",
            },
            {"speaker": "Ann", "dia_id": "D1:3", "text": "I adopted a cat."},
        ],
    },
    "observation": {
        "session_1_observation": {
            "Ann": [["Ann adopted a cat.", "D1:1"]],
            "Bob": [["Bob bought a kayak.", "D1:2; D1:3"]],
        }
    },
    "qa": [
        {
            "question": "What pet did Ann adopt?",
            "answer": "cat",
            "evidence": ["D1:1"],
            "category": 1,
        },
        {"question": "What did Bob buy?", "answer": "kayak", "evidence": ["D"], "category": 4},
        {"question": "Is this unanswerable?", "evidence": ["D1:2"], "category": 5},
    ],
}


def test_observations_become_memories_with_their_evidence():
    conversation = conversation_load(CONVERSATION, index=0, corpus="observations")

    assert [(i.text, i.evidence) for i in conversation.items] == [
        ("Ann adopted a cat.", frozenset({"D1:1"})),
        ("Bob bought a kayak.", frozenset({"D1:2", "D1:3"})),
    ]
    # Category 5 is skipped; a question left without usable evidence is dropped and counted.
    assert [q.text for q in conversation.questions] == ["What pet did Ann adopt?"]
    assert conversation.questions_without_evidence == 1
    assert conversation.evidence.split == 1 and conversation.evidence.dropped == 1


def test_each_memory_is_said_on_its_sessions_date():
    for corpus in ("observations", "turns"):
        conversation = conversation_load(CONVERSATION, index=0, corpus=corpus)

        said = {item.said for item in conversation.items}
        assert said == {datetime.datetime(2023, 5, 8, 13, 56, tzinfo=datetime.UTC)}


def test_turns_become_speaker_prefixed_memories_and_duplicates_merge():
    conversation = conversation_load(CONVERSATION, index=0, corpus="turns")

    assert [i.text for i in conversation.items] == [
        "Ann: I adopted a cat.",
        "Bob: Look at this! [shares a photo of a kayak]",
    ]
    assert conversation.items[0].evidence == {"D1:1", "D1:3"}
    assert conversation.duplicates_merged == 1


def test_metrics_count_any_and_all_hits_and_reciprocal_rank():
    metrics = Metrics()
    wanted = frozenset({"D1:1", "D1:2"})

    metrics.add([frozenset({"D9:9"}), frozenset({"D1:1"}), frozenset({"D1:2"})], wanted)
    metrics.add([frozenset({"D9:9"})] * 12 + [frozenset({"D1:1"})], frozenset({"D1:1"}))

    assert metrics.as_percent() == {
        "recall_any@5": 50.0,
        "recall_any@10": 50.0,
        "recall_any@20": 100.0,
        "recall_all@10": 50.0,
        "mrr@10": 25.0,
    }
