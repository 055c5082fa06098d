"""The training figures' scripts (benchmarks/time_to_beat.py, training_throughput.py's
self-play table) on fake trainers: which evaluation counts as clearing the fair share, the
limit, the ratios against SB3, and the shared setting."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from benchmarks import time_to_beat, training_throughput
from card_envs.training.config import load_config

pytest.importorskip("sb3_contrib")


def fake_trainer(curve: list[float], rate: float):
    """A trainer whose periodic evaluations vs the heuristic (4 players) have the low ends
    `curve`, one a minute, stopping where `stop_when` says."""

    def train(cfg, echo=print, stop_when=None, **_):
        Path(cfg.out).mkdir(parents=True)
        with open(f"{cfg.out}/evaluations.csv", "w", newline="") as f:
            out = csv.DictWriter(f, ["kind", "minutes", "timesteps", "win_rate", "ci_low",
                                     "ci_high", "fair_share"])  # fmt: skip
            out.writeheader()
            for k, low in enumerate(curve):
                row = {"kind": "periodic", "opponent": "heuristic", "minutes": float(k),
                       "timesteps": 1000 * k, "win_rate": low + 0.03, "ci_low": low,
                       "ci_high": low + 0.06, "fair_share": 0.25}  # fmt: skip
                out.writerow({k: v for k, v in row.items() if k != "opponent"})
                if stop_when is not None and stop_when([row]):
                    break
        return {"training_steps_per_s": rate}

    return train


def fake_example(curve: list[float], rate: float):
    """examples/cleanrl_masked_ppo.py's `main`: evaluations with the low ends `curve`, one a
    minute, stopping where the first clears (`--stop-when-beaten`)."""

    def main(argv):
        assert "--stop-when-beaten" in argv and argv[argv.index("--num-players") + 1] == "4"
        evals = []
        for k, low in enumerate(curve):
            evals.append({"step": 1000 * k, "minutes": float(k), "win_rate": low + 0.03,
                          "ci_low": low, "ci_high": low + 0.06, "fair_share": 0.25})  # fmt: skip
            if low > 0.25:
                break
        return {"evals": evals, "steps_per_s": rate}

    return main


def test_time_to_beat_takes_the_first_evaluation_that_clears_and_the_best_otherwise(
    tmp_path, monkeypatch, capsys
):
    import card_envs.training.ppo.train as ppo
    import card_envs.training.selfplay.train as selfplay

    def in_process(game, args, tmp):  # the runs here, where the fakes are
        every = {"sb3": args.every_sb3, "selfplay": 10, "cleanrl": args.every_cleanrl}
        return {way: time_to_beat._run(game, way, args.minutes, every[way], tmp)
                for way in args.trainers}  # fmt: skip

    monkeypatch.setattr(time_to_beat, "_trainers", in_process)
    monkeypatch.setattr(ppo, "train", fake_trainer([0.0, 0.2, 0.24, 0.26, 0.3], 5_000.0))
    monkeypatch.setattr(selfplay, "train_selfplay", fake_trainer([0.1, 0.27, 0.4], 20_000.0))
    monkeypatch.setattr(time_to_beat, "example_main", lambda: fake_example([0.1, 0.3], 30_000.0))
    page = tmp_path / "page.md"
    time_to_beat.main(["--game", "no_thanks", "--minutes", "5", "--out", str(page)])
    text = page.read_text()
    assert text.startswith("# Time to beat the heuristic\n") and "\n## no_thanks\n" in text
    lines = [ln for ln in text.splitlines() if ln.startswith(("| SB3 ", "| all-seat ", "| Clean"))]
    sb3, sp, cleanrl = lines
    assert "| 3.0 min | 0.290 [0.260, 0.320] at 3,000 steps |" in sb3  # the first to clear
    assert "| 1.0 min |" in sp and sp.endswith("| 20,000 | 0.33x |")
    assert "| 250,000 | 1.0 min | 0.330 [0.300, 0.360] at 1,000 steps |" in cleanrl
    assert cleanrl.endswith("| 30,000 | 0.33x |")
    monkeypatch.setattr(selfplay, "train_selfplay", fake_trainer([0.1, 0.2, 0.22], 1.0))
    time_to_beat.main(["--game", "no_thanks", "--minutes", "5", "--runs", str(tmp_path / "r")])
    sp = [ln for ln in capsys.readouterr().out.splitlines() if "self-play" in ln][-1]
    assert "| not within the limit |  | 0.250 [0.220, 0.280] at 2.0 min |" in sp
    kept = sorted(p.parent.name for p in (tmp_path / "r").glob("*/evaluations.csv"))
    assert kept == ["no_thanks-sb3", "no_thanks-selfplay"]  # --runs keeps both runs
    time_to_beat.main(["--game", "no_thanks", "--minutes", "5", "--trainer", "cleanrl"])
    out = capsys.readouterr().out
    assert "| CleanRL " in out and "| SB3 " not in out and "| all-seat " not in out
    with pytest.raises(SystemExit):  # a page's section holds every trainer's row
        time_to_beat.main(["--game", "no_thanks", "--trainer", "sb3", "--out", str(page)])


def test_a_pages_sections_are_replaced_by_their_next_run_and_the_others_kept(tmp_path):
    from card_envs.testing.report import write_sections_page

    page = tmp_path / "page.md"
    write_sections_page(page, "T", "About.", "cmd 1", {"a": "first a", "b": "first b"})
    write_sections_page(page, "T", "About.", "cmd 2", {"c": "first c"})
    write_sections_page(page, "T", "About.", "cmd 3", {"a": "second a"})
    text = page.read_text()
    assert text.startswith("# T\n\nAbout.\n\n## a\n")
    assert [ln for ln in text.splitlines() if ln.startswith("## ")] == ["## a", "## b", "## c"]
    commands = [ln for ln in text.splitlines() if ln.startswith("- command: ")]
    assert commands == ["- command: `cmd 3`", "- command: `cmd 1`", "- command: `cmd 2`"]
    assert "second a" in text and "first a" not in text and "first b" in text


def test_the_shared_setting_is_the_same_for_both_trainers():
    sb3 = training_throughput.shared(load_config("configs/training/super_zwierzaki.yaml"))
    sp = training_throughput.shared(load_config("configs/training/selfplay/super_zwierzaki.yaml"))
    for cfg in (sb3, sp):
        assert cfg.num_envs == 22 * (4096 // 22) and cfg.ppo.n_steps == 16
        assert cfg.ppo.batch_size * 8 == cfg.num_envs * 16 and cfg.ppo.n_epochs == 4
        assert cfg.ppo.net_arch == (128, 128)


def test_selfplay_strength_plays_every_setting_against_ppo(tmp_path, monkeypatch):
    """A tiny padded self-play network of two settings, played against the shipped ppo."""
    from benchmarks import selfplay_strength
    from card_envs.training.config import parse_config
    from card_envs.training.selfplay.train import train_selfplay

    cfg = parse_config({
        "env": "no_thanks_v0", "config": {"num_players": 3}, "mix": {"num_players": [3, 4]},
        "out": str(tmp_path / "run"), "total_timesteps": 200, "num_envs": 8, "selfplay": {},
        "ppo": {"n_steps": 8, "batch_size": 64, "n_epochs": 1, "net_arch": [8]},
        "evaluation": {"every": 10**6, "games": 4, "final_games": 4, "against": ["random"]},
    })  # fmt: skip
    train_selfplay(cfg, echo=lambda _: None)
    monkeypatch.setattr(selfplay_strength, "load_config", lambda _: cfg)
    page = tmp_path / "page.md"
    model = tmp_path / "run" / "model.zip"
    selfplay_strength.main(["--game", "no_thanks", "--model", str(model), "--games", "8",
                            "--workers", "1", "--out", str(page)])  # fmt: skip
    rows = [ln for ln in page.read_text().splitlines() if ln.startswith("| num_players=")]
    assert [r.split(" | ")[0] for r in rows] == ["| num_players=3", "| num_players=4"]
    cells = [[c.strip() for c in r.split("|")[1:-1]] for r in rows]
    ppo, heuristic = (sum(c[k] == "yes" for c in cells) for k in (3, 5))
    assert all(c[3] in ("yes", "no") and c[5] in ("yes", "no") for c in cells)
    assert (f"cleared against ppo in {ppo} of 2 settings, against the heuristic in "
            f"{heuristic}\n") in page.read_text()  # fmt: skip
