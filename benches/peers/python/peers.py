"""Python peers of benches/run: LangChain and pydantic on the inputs of
benches/benches/peers_pipeline.rs. Prints one JSON object:
{"versions": {...}, "results": {name: nanoseconds per iteration}}.

Usage: peers.py [--quick] [pipeline] [export]   (default: both groups)
"""

import json
import statistics
import sys
import time
from pathlib import Path
from typing import List, Literal, Optional

import langchain_core
import pydantic
from langchain_core.tools import StructuredTool
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import BaseModel, ConfigDict, Field

QUICK = "--quick" in sys.argv
FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


def measure(fn, budget_s):
    """Median nanoseconds per call of `fn` over rounds filling `budget_s`."""
    fn()  # warm up
    n = 1
    while True:  # calibrate: one round takes at least 20 ms
        start = time.perf_counter_ns()
        for _ in range(n):
            fn()
        elapsed = time.perf_counter_ns() - start
        if elapsed >= 20_000_000:
            break
        n *= 2
    rounds = max(5, int(budget_s * 1e9 / elapsed))
    samples = []
    for _ in range(rounds):
        start = time.perf_counter_ns()
        for _ in range(n):
            fn()
        samples.append((time.perf_counter_ns() - start) / n)
    return statistics.median(samples)


# --- pipeline: the trivial tool of peers_pipeline.rs -----------------------


class TrivialArgs(BaseModel):
    path: str = Field(description="File to look at.")
    limit: Optional[int] = Field(default=None, ge=0, description="Most lines to return.")
    tags: Optional[List[str]] = Field(default=None, description="Labels.")


def make_tool(i):
    def run(path: str, limit: Optional[int] = None, tags: Optional[List[str]] = None) -> str:
        return "ok"

    return StructuredTool.from_function(
        func=run,
        name=f"tool{i}____run",
        description=f"Trivial tool number {i}: answers ok.",
        args_schema=TrivialArgs,
    )


TOOLS = {t.name: t for t in (make_tool(i) for i in range(100))}
CALL = {"name": "tool42____run", "arguments": '{"path": "src/lib.rs", "limit": 20, "tags": ["a", "b"]}'}


def invoke_one():
    # What a host does with a model's call: find the tool, parse the
    # arguments text, invoke (LangChain validates with pydantic and runs).
    tool = TOOLS[CALL["name"]]
    return tool.invoke(json.loads(CALL["arguments"]))


BATCH = [dict(CALL) for _ in range(100)]


def invoke_batch():
    return [TOOLS[c["name"]].invoke(json.loads(c["arguments"])) for c in BATCH]


# --- validation: the 20-property model of peers/fixtures/schema20.json ------


class Person(BaseModel):
    # strict: no coercion ("5" is not an integer), like JSON Schema.
    model_config = ConfigDict(extra="forbid", strict=True)
    name: str = Field(min_length=1, max_length=100)
    email: str = Field(max_length=200)
    age: int = Field(ge=0, le=150)
    score: float
    active: bool
    tags: List[str]
    role: Literal["admin", "user", "guest"]
    city: str
    country: str = Field(min_length=2, max_length=2)
    zip: str
    phone: str
    height: float = Field(ge=0)
    weight: float = Field(ge=0)
    level: int
    verified: bool
    notes: str
    ids: List[int]
    ratio: float = Field(ge=0, le=1)
    language: str
    timezone: str


INSTANCE = json.loads((FIXTURES / "instance20.json").read_text())
SCHEMA = json.loads((FIXTURES / "schema20.json").read_text())

# --- export: 500 tools as OpenAI Chat tools ---------------------------------

EXPORT_TOOLS = [make_tool(i) for i in range(500)]


def export_chat():
    return [convert_to_openai_tool(t) for t in EXPORT_TOOLS]


def main():
    # Same inputs, same answers as ours before timing anything.
    assert invoke_one() == "ok"
    assert len(invoke_batch()) == 100
    Person.model_validate(INSTANCE)
    assert sorted(Person.model_fields) == sorted(SCHEMA["properties"])
    try:
        Person.model_validate({**INSTANCE, "age": "thirty-six"})
        raise AssertionError("a bad age must fail")
    except pydantic.ValidationError:
        pass
    chat = export_chat()
    assert len(chat) == 500 and chat[42]["function"]["name"] == "tool42____run"

    groups = [a for a in sys.argv[1:] if not a.startswith("--")] or ["pipeline", "export"]
    budget = 0.4 if QUICK else 2.0
    results = {}
    if "pipeline" in groups:
        results["langchain/invoke_one"] = measure(invoke_one, budget)
        results["langchain/invoke_batch_100"] = measure(invoke_batch, budget)
        results["pydantic/model_validate_20"] = measure(
            lambda: Person.model_validate(INSTANCE), budget
        )
    if "export" in groups:
        results["langchain/convert_to_openai_tool_500"] = measure(export_chat, budget)
    print(
        json.dumps(
            {
                "versions": {
                    "python": sys.version.split()[0],
                    "langchain-core": langchain_core.__version__,
                    "pydantic": pydantic.VERSION,
                },
                "results": results,
            }
        )
    )


if __name__ == "__main__":
    main()
