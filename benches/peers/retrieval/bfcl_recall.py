"""Tool retrieval on the Berkeley Function Calling Leaderboard's data.

Builds one pool of tools and one list of labelled queries from the BFCL v4
categories whose entries have exactly one expected call (`simple_python`,
`multiple`, `live_simple`, `live_multiple`), then ranks the pool for every
query with the reference BM25 (`rank_bm25.BM25Okapi`, k1 1.5, b 0.75) and
writes everything as one JSON document:

    {"source": ..., "pool": [{"api", "name", "description", "parameters"}],
     "queries": [{"id", "query", "gold"}],
     "reference": {"recall@1": r1, "recall@5": r5, "tokenizer": ...}}

Pool: every function offered by any of those entries, one per name (the
first description seen). `api` is the name made safe for a wire name
(characters other than letters, digits, `_` and `-` become `_`; a clash gets
a numeric suffix). Queries: the last user message of the entry; gold: the
`api` of the one function its ground truth calls.

The reference indexes the same text our index reads: the name, the
description, and each parameter's name and description, lower-cased and
split at every non-alphanumeric character (no stemming, no stopwords: a
plain BM25 as a host would write it with this library).

Usage: python bfcl_recall.py OUT.json
"""

import json
import re
import sys
from importlib import resources

from rank_bm25 import BM25Okapi

CATEGORIES = ["simple_python", "multiple", "live_simple", "live_multiple"]


def lines(name):
    text = resources.files("bfcl_eval").joinpath("data", name).read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def safe(name):
    return re.sub(r"[^A-Za-z0-9_-]", "_", name)


def tokens(text):
    return re.findall(r"[a-z0-9]+", text.lower())


def main(out):
    pool, by_name, used = [], {}, set()
    queries = []
    for category in CATEGORIES:
        entries = lines(f"BFCL_v4_{category}.json")
        answers = {a["id"]: a["ground_truth"] for a in lines(f"possible_answer/BFCL_v4_{category}.json")}
        for entry in entries:
            for function in entry["function"]:
                name = function["name"]
                if name in by_name:
                    continue
                api = safe(name)
                base, n = api, 1
                while api in used:
                    n += 1
                    api = f"{base}_{n}"
                used.add(api)
                properties = (function.get("parameters") or {}).get("properties") or {}
                parameters = {
                    p: str((spec or {}).get("description", "")) for p, spec in properties.items()
                }
                by_name[name] = api
                pool.append({
                    "api": api,
                    "name": name,
                    "description": function.get("description", ""),
                    "parameters": parameters,
                })
            truth = answers.get(entry["id"])
            if not truth or len(truth) != 1 or len(truth[0]) != 1:
                continue
            gold = next(iter(truth[0]))
            if gold not in by_name:
                continue
            users = [m for turn in entry["question"] for m in turn if m.get("role") == "user"]
            if not users:
                continue
            queries.append({"id": entry["id"], "query": users[-1]["content"], "gold": by_name[gold]})

    documents = [
        tokens(" ".join([t["name"], t["description"]] + [f"{p} {d}" for p, d in t["parameters"].items()]))
        for t in pool
    ]
    bm25 = BM25Okapi(documents)
    hits1 = hits5 = 0
    for q in queries:
        scores = bm25.get_scores(tokens(q["query"]))
        order = sorted(range(len(pool)), key=lambda i: (-scores[i], pool[i]["api"]))[:5]
        ranked = [pool[i]["api"] for i in order]
        hits1 += ranked[:1] == [q["gold"]]
        hits5 += q["gold"] in ranked
    n = len(queries)
    import importlib.metadata as md
    document = {
        "source": {
            "dataset": f"bfcl-eval {md.version('bfcl-eval')}",
            "categories": CATEGORIES,
            "reference": f"rank-bm25 {md.version('rank-bm25')} BM25Okapi",
        },
        "pool": pool,
        "queries": queries,
        "reference": {
            "recall@1": hits1 / n,
            "recall@5": hits5 / n,
            "tokenizer": "lower-case, split at non-alphanumerics",
        },
    }
    with open(out, "w", encoding="utf-8") as f:
        json.dump(document, f)
    print(f"{len(pool)} tools, {n} queries; reference recall@1 {hits1 / n:.3f}, recall@5 {hits5 / n:.3f}")


if __name__ == "__main__":
    main(sys.argv[1])
