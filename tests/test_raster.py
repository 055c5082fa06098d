"""`core.raster` draws what a scene says, in the look scene.py fixes for both drawers."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest
from moviepy.video.io.VideoFileClip import VideoFileClip
from PIL import ImageColor

import card_envs
from card_envs.core import raster
from card_envs.core.scene import BACK, BACK_LINE, EDGE, FELT, MARK, Scene
from card_envs.testing.checks import check_picture
from card_envs.wrappers import SingleAgentEnv


def rgb(colour: str) -> tuple[int, int, int]:
    return ImageColor.getrgb(colour)


def pixel(image: np.ndarray, x: int, y: int) -> tuple[int, int, int]:
    return tuple(int(v) for v in image[y, x])


def picture(scene: Scene) -> np.ndarray:
    return raster.draw(scene.to_dict())


def ink_columns(image: np.ndarray) -> np.ndarray:
    """The x of every column holding anything but felt."""
    return np.flatnonzero((image != rgb(FELT)).any(axis=(0, 2)))


def test_the_picture_has_the_scenes_size_and_a_felt_background():
    s = Scene(width=300)
    s.card(10, 10, "5")
    d = s.to_dict()
    image = raster.draw(d)
    assert image.shape == (d["height"], 300, 3) and image.dtype == np.uint8
    assert pixel(image, 299, d["height"] - 1) == rgb(FELT)


def test_a_frame_has_one_size_whatever_the_scene_and_shrinks_only_a_larger_one():
    small, tall = Scene(width=300), Scene(width=960)
    small.card(10, 10, "5", colour="#cc0000")
    tall.card(0, 0, "5", colour="#cc0000", w=960, h=1440)  # twice the frame's height
    for s in (small, tall):
        image = raster.frame(s.to_dict())
        assert image.shape == (raster.FRAME[1], raster.FRAME[0], 3)
    image = raster.frame(small.to_dict())
    left = (raster.FRAME[0] - 300) // 2  # centred, at the top, drawn at its own size
    assert pixel(image, left + 14, 16) == rgb("#cc0000")
    assert pixel(image, left + 30, 200) == rgb(FELT)
    image = raster.frame(tall.to_dict())  # about halved: 476 wide in the middle, 720 high
    assert pixel(image, 300, 100) == rgb("#cc0000")
    assert pixel(image, 100, 360) == rgb(FELT) and pixel(image, 860, 360) == rgb(FELT)


def test_a_card_is_its_colour_inside_edged_in_edge_on_the_felt():
    s = Scene(width=200)
    s.card(50, 20, colour="#ff0000")  # no label: the face is one colour
    image = picture(s)
    assert pixel(image, 70, 50) == rgb("#ff0000")
    assert pixel(image, 50, 50) == rgb(EDGE)  # the left edge, 1 wide
    assert pixel(image, 51, 50) == rgb("#ff0000")
    assert pixel(image, 45, 50) == pixel(image, 100, 50) == rgb(FELT)
    assert pixel(image, 70, 15) == pixel(image, 70, 90) == rgb(FELT)


def test_a_card_label_is_drawn_in_its_ink_inside_the_card():
    s = Scene(width=200)
    s.card(50, 20, "8", colour="#ffffff", ink="#0000ff")
    image = picture(s)
    ys, xs = np.nonzero((image == rgb("#0000ff")).all(axis=2))
    assert len(xs) > 10
    assert 50 < xs.min() and xs.max() < 94 and 20 < ys.min() and ys.max() < 82


def test_a_face_down_card_shows_the_back_with_its_inner_line():
    s = Scene(width=200)
    s.card(50, 20, "7", colour="#ff0000", down=True)
    image = picture(s)
    assert pixel(image, 72, 51) == rgb(BACK)
    assert pixel(image, 54, 51) == rgb(BACK_LINE)  # the inner rectangle, inset 4
    assert not (image == rgb("#ff0000")).all(axis=2).any()


def test_a_marked_card_is_outlined_in_mark_three_pixels_wide():
    plain, marked = Scene(width=200), Scene(width=200)
    plain.card(50, 20, colour="#ffffff")
    marked.card(50, 20, colour="#ffffff", mark=True)
    a, b = picture(plain), picture(marked)
    for x in (50, 51, 52):
        assert pixel(b, x, 50) == rgb(MARK)
    assert pixel(b, 53, 50) == pixel(a, 52, 50) == rgb("#ffffff")
    assert pixel(a, 50, 50) == rgb(EDGE)


def test_a_panel_is_filled_with_its_colour_and_outlined_in_mark_when_marked():
    plain, marked = Scene(width=300), Scene(width=300)
    plain.panel(8, 8, 200, 60, colour="#336699")
    marked.panel(8, 8, 200, 60, colour="#336699", mark=True)
    a, b = picture(plain), picture(marked)
    assert pixel(a, 100, 50) == pixel(b, 100, 50) == rgb("#336699")
    assert pixel(a, 8, 40) == rgb("#336699") and pixel(b, 9, 40) == rgb(MARK)
    assert pixel(a, 4, 40) == rgb(FELT)


def test_a_chip_is_a_circle_of_its_colour():
    s = Scene(width=200)
    s.chip(100, 50, "", r=20, colour="#00ff00")
    image = picture(s)
    assert pixel(image, 100, 50) == pixel(image, 115, 50) == rgb("#00ff00")
    assert pixel(image, 80, 50) == rgb(EDGE)
    assert pixel(image, 84, 34) == rgb(FELT)  # inside the square, outside the circle


def test_text_lands_after_around_or_before_x_by_its_anchor_with_y_its_baseline():
    for anchor in ("start", "middle", "end"):
        s = Scene(width=400)
        s.text(200, 50, "MMMM", size=20, anchor=anchor, colour="#ffffff")
        image = picture(s)
        xs = ink_columns(image)
        if anchor == "start":
            assert 198 <= xs.min() and xs.max() > 230
        elif anchor == "middle":
            assert xs.min() < 185 and xs.max() > 215 and abs(xs.min() + xs.max() - 400) <= 3
        else:
            assert xs.min() < 170 and xs.max() <= 202
        rows = np.flatnonzero((image != rgb(FELT)).any(axis=(1, 2)))
        assert 47 <= rows.max() <= 50 and rows.min() < 40  # no descender: it sits on y


def test_bold_text_is_heavier_than_regular():
    inked = []
    for bold in (False, True):
        s = Scene(width=400)
        s.text(20, 50, "Game over", size=16, bold=bold, colour="#ffffff")
        inked.append(int((picture(s) != rgb(FELT)).any(axis=2).sum()))
    assert inked[1] > 1.2 * inked[0]


def test_fonts_are_loaded_once_per_size_and_weight():
    assert raster.font(13) is raster.font(13)
    assert raster.font(13) is not raster.font(13, bold=True)
    assert raster.font(13).size == 13 and raster.font(18, bold=True).size == 18


# --- render_mode="rgb_array" in the envs -------------------------------------------------------


def play(env: gymnasium.Env, steps: int) -> list[np.ndarray]:
    """The frames of the first legal action played `steps` times (or to the episode's end)."""
    env.reset(seed=0)
    frames = [env.render()]
    for _ in range(steps):
        _, _, term, trunc, _ = env.step(int(np.flatnonzero(env.unwrapped.action_masks())[0]))
        frames.append(env.render())
        if term or trunc:
            break
    return frames


@pytest.mark.parametrize("env_id", card_envs.env_ids())
def test_every_gymnasium_env_draws_its_table_for_a_video(env_id):
    """Each single-agent env (its own, or a multi-agent game's learner view) renders pictures
    of one size, and tells RecordVideo its frame rate."""
    env = gymnasium.make(card_envs.gym_id(env_id), render_mode="rgb_array")
    assert env.metadata["render_fps"] > 0
    frames = [check_picture(f, env_id) for f in play(env, 6)]
    assert len({f.shape for f in frames}) == 1
    assert any((f != frames[0]).any() for f in frames)


def test_the_learner_view_shows_the_end_of_its_game_after_the_last_step():
    """The batched engine deals the next game at once; the last render is still of the end."""
    env = SingleAgentEnv("no_thanks_v0", seed=4, render_mode="ansi")
    play(env, 1000)
    assert env.render().startswith("Game over")
    env.reset()
    assert not env.render().startswith("Game over")


def test_record_video_writes_an_episode_of_the_learner_view(tmp_path):
    env = SingleAgentEnv("no_thanks_v0", seed=2, num_players=3, render_mode="rgb_array")
    recorder = gymnasium.wrappers.RecordVideo(
        env, str(tmp_path / "videos"), episode_trigger=lambda episode: True, name_prefix="no_thanks"
    )
    frames = play(recorder, 1000)
    recorder.close()
    video = VideoFileClip(str(tmp_path / "videos" / "no_thanks-episode-0.mp4"))
    assert video.fps == env.metadata["render_fps"]
    assert video.size == [frames[0].shape[1], frames[0].shape[0]]
    assert video.duration == pytest.approx(len(frames) / video.fps, abs=0.6)
    video.close()
