"""A real OpenAI-compatible server with a tiny language model built here, for the `llm:`
agent's tests and `benchmarks/llm_illegal.py`; nothing is downloaded.

The model: a Llama of random weights (hidden size 32, 2 layers), and a byte-level BPE
tokenizer trained on the fly on the games' rules and a few JSON answers, with a chat
template, saved to a folder. The server: `transformers serve` (the `llm` extra) on a free
port of 127.0.0.1, serving that folder; or, where llama-cpp-python's server is installed
by hand, the same model as a GGUF file (a server that constrains answers to a JSON schema).
Ready is decided by the server answering `GET /v1/models`; the deadline is a safety net
only.

    python -m card_envs.testing.tiny_llm build DIR             # the model alone
    python -m card_envs.testing.tiny_llm build-gguf DIR        # and as DIR.gguf, for llama.cpp
    python -m card_envs.testing.tiny_llm build-serve DIR PORT  # the model, then its server
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

SEED = 0
VOCAB = 1000
HIDDEN = 32
LAYERS = 2
CONTEXT = 32768  # rummidrez's legal moves make long prompts
READY_DEADLINE = 600.0  # s; only if the server neither answers nor exits
SPECIALS = ["<|bos|>", "<|eos|>", "<|pad|>"]
CHAT_TEMPLATE = (
    "{% for m in messages %}<|{{ m['role'] }}|>\n{{ m['content'] }}\n{% endfor %}"
    "{% if add_generation_prompt %}<|assistant|>\n{% endif %}"
)
OFFLINE = {"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "HF_HUB_DISABLE_TELEMETRY": "1"}
# one thread: a model this small gains nothing from more, and on a busy 2-core machine
# torch's threads waiting on each other make every answer many times slower
ONE_THREAD = {"OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"}


def corpus() -> list[str]:
    """The tokenizer's training text: every game's rules, answers as JSON, the digits."""
    from card_envs.registry import game_class, multi_agent_env_ids

    texts = [game_class(e).rules_summary for e in multi_agent_env_ids()]
    texts += [json.dumps({"move": k}) for k in range(200)]
    texts += ["Your legal moves (id: move):", "That answer is not a legal move:"]
    return texts * 4


def build_model(folder: str | os.PathLike) -> Path:
    """The tiny model and its tokenizer, saved in `folder` (a `transformers` model folder:
    `serve` takes its path as the model's name)."""
    import torch
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

    folder = Path(folder)
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=VOCAB,
        special_tokens=SPECIALS,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tok.train_from_iterator(corpus(), trainer)
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tok, bos_token="<|bos|>", eos_token="<|eos|>", pad_token="<|pad|>"
    )
    fast.chat_template = CHAT_TEMPLATE
    fast.save_pretrained(folder)
    torch.manual_seed(SEED)
    config = LlamaConfig(
        vocab_size=tok.get_vocab_size(),
        hidden_size=HIDDEN,
        intermediate_size=2 * HIDDEN,
        num_hidden_layers=LAYERS,
        num_attention_heads=2,
        num_key_value_heads=2,
        max_position_embeddings=CONTEXT,
        bos_token_id=fast.bos_token_id,
        eos_token_id=fast.eos_token_id,
        pad_token_id=fast.pad_token_id,
    )
    model = LlamaForCausalLM(config)
    model.save_pretrained(folder)
    return folder


def write_gguf(folder: str | os.PathLike, out: str | os.PathLike) -> Path:
    """The model of `folder` (`build_model`) as one GGUF file, for llama.cpp's servers
    (`llama-cpp-python[server]`): its weights as they are (random: the rotary layout of
    the query and key weights does not matter), its tokenizer, its chat template."""
    import gguf
    from safetensors.numpy import load_file

    folder, out = Path(folder), Path(out)
    config = json.loads((folder / "config.json").read_text())
    tok = json.loads((folder / "tokenizer.json").read_text())
    w = load_file(folder / "model.safetensors")
    writer = gguf.GGUFWriter(str(out), "llama")
    heads, hidden = config["num_attention_heads"], config["hidden_size"]
    writer.add_context_length(CONTEXT)
    writer.add_embedding_length(hidden)
    writer.add_block_count(config["num_hidden_layers"])
    writer.add_feed_forward_length(config["intermediate_size"])
    writer.add_head_count(heads)
    writer.add_head_count_kv(config["num_key_value_heads"])
    writer.add_rope_dimension_count(hidden // heads)
    writer.add_layer_norm_rms_eps(config["rms_norm_eps"])
    writer.add_file_type(gguf.LlamaFileType.ALL_F32)
    vocab = sorted(tok["model"]["vocab"].items(), key=lambda kv: kv[1])
    special = {t["content"] for t in tok["added_tokens"]}
    writer.add_tokenizer_model("gpt2")
    writer.add_tokenizer_pre("gpt-2")
    writer.add_token_list([t for t, _ in vocab])
    writer.add_token_types(
        [gguf.TokenType.CONTROL if t in special else gguf.TokenType.NORMAL for t, _ in vocab]
    )
    writer.add_token_merges([" ".join(m) if isinstance(m, list) else m
                             for m in tok["model"]["merges"]])  # fmt: skip
    writer.add_bos_token_id(config["bos_token_id"])
    writer.add_eos_token_id(config["eos_token_id"])
    writer.add_pad_token_id(config["pad_token_id"])
    writer.add_add_bos_token(False)
    writer.add_chat_template(CHAT_TEMPLATE)
    names = {"embed_tokens": "token_embd", "norm": "output_norm", "lm_head": "output"}
    layer = {
        "input_layernorm": "attn_norm", "self_attn.q_proj": "attn_q",
        "self_attn.k_proj": "attn_k", "self_attn.v_proj": "attn_v",
        "self_attn.o_proj": "attn_output", "post_attention_layernorm": "ffn_norm",
        "mlp.gate_proj": "ffn_gate", "mlp.up_proj": "ffn_up", "mlp.down_proj": "ffn_down",
    }  # fmt: skip
    if "lm_head.weight" not in w:  # tied embeddings
        w["lm_head.weight"] = w["model.embed_tokens.weight"]
    for name, array in sorted(w.items()):
        parts = name.removeprefix("model.").removesuffix(".weight")
        if parts.startswith("layers."):
            _, i, rest = parts.split(".", 2)
            target = f"blk.{i}.{layer[rest]}.weight"
        else:
            target = f"{names[parts]}.weight"
        writer.add_tensor(target, array.astype("float32"))
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return out


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class Server:
    process: subprocess.Popen
    url: str  # the base URL, up to /v1
    model: str  # the model's name in requests: its folder
    log: Path

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


SERVERS = ("transformers", "llama-cpp")


def start_server(folder: str | os.PathLike, server: str = "transformers") -> Server:
    """A server of the tiny model, built first in `folder`, on a free port, once it answers:
    `transformers serve` of `folder`/model (built in the server's process: one import of
    torch), or llama-cpp-python's server of `folder`/model.gguf (`write_gguf`; the
    package is not in the extras: it builds llama.cpp from source, minutes on 2 cores)."""
    folder = Path(folder)
    model, log, port = folder / "model", folder / "server.log", free_port()
    env = {**os.environ, **OFFLINE, **ONE_THREAD}
    if server == "transformers":
        command = [sys.executable, "-m", __name__, "build-serve", str(model), str(port)]
    elif server == "llama-cpp":
        subprocess.run(
            [sys.executable, "-m", __name__, "build-gguf", str(model)], check=True, env=env
        )
        model = model.with_suffix(".gguf")
        command = [
            sys.executable, "-m", "llama_cpp.server", "--model", str(model),
            "--host", "127.0.0.1", "--port", str(port), "--n_ctx", "16384",
            "--n_threads", "1", "--verbose", "False",
        ]  # fmt: skip
    else:
        raise ValueError(f"server must be one of {SERVERS}, got {server!r}")
    with log.open("w") as out:
        process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, env=env)
    running = Server(process, f"http://127.0.0.1:{port}/v1", str(model), log)
    try:
        wait_ready(running)
    except BaseException:
        running.stop()
        raise
    return running


def serve(model: str, port: int) -> None:
    """`transformers serve MODEL` on 127.0.0.1:`port` in this process (its CLI)."""
    from transformers.cli.transformers import app

    app([
        "serve", model, "--host", "127.0.0.1", "--port", str(port), "--device", "cpu",
        "--log-level", "warning",
    ])  # fmt: skip


def wait_ready(server: Server) -> None:
    """Until the server lists its models; an exit of the server is an error with its log."""
    deadline = time.monotonic() + READY_DEADLINE
    while True:
        if server.process.poll() is not None:
            raise RuntimeError(
                f"the model server exited with {server.process.returncode}:\n"
                + server.log.read_text()[-3000:]
            )
        try:
            with urllib.request.urlopen(f"{server.url}/models", timeout=5) as answer:
                if answer.status == 200:
                    return
        except (urllib.error.URLError, OSError):
            pass
        if time.monotonic() > deadline:
            raise RuntimeError(f"the model server did not answer in {READY_DEADLINE:.0f} s")
        time.sleep(0.2)  # between polls only: readiness is the server's answer


USAGE = "python -m card_envs.testing.tiny_llm build DIR | build-gguf DIR | build-serve DIR PORT"

if __name__ == "__main__":
    args = sys.argv[1:]
    if args[:1] in (["build"], ["build-gguf"]) and len(args) == 2:
        build_model(args[1])
        if args[0] == "build-gguf":
            write_gguf(args[1], Path(args[1]).with_suffix(".gguf"))
    elif args[:1] == ["build-serve"] and len(args) == 3:
        build_model(args[1])
        serve(args[1], int(args[2]))
    else:
        raise SystemExit(f"usage: {USAGE}")
