import gzip

import numpy as np
import pandas as pd
import pytest

from forecast.datasets import read_bvh

TINY = """HIERARCHY
ROOT Hips
{
  OFFSET 0.0 0.0 0.0
  CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation
  JOINT Chest
  {
    OFFSET 0.0 5.5 0.0
    CHANNELS 3 Zrotation Xrotation Yrotation
    End Site
    {
      OFFSET 0.0 3.0 0.0
    }
  }
  JOINT Leg
  {
    OFFSET 1.0 -2.0 0.5
    CHANNELS 3 Zrotation Xrotation Yrotation
  }
}
MOTION
Frames: 3
Frame Time: 0.04
1 2 3 4 5 6 7 8 9 10 11 12
13 14 15 16 17 18 19 20 21 22 23 24
25 26 27 28 29 30 31 32 33 34 35 36
"""


def test_tiny_bvh(tmp_path):
    with gzip.open(tmp_path / "tiny.bvh.gz", "wt") as f:
        f.write(TINY.replace("\n", "\r\n"))  # Windows line ends too
    bvh = read_bvh(tmp_path / "tiny.bvh.gz")
    assert [j.name for j in bvh.joints] == ["Hips", "Chest", "Leg"]
    assert [j.parent for j in bvh.joints] == [None, "Hips", "Hips"]
    assert bvh.joints[1].offset == (0.0, 5.5, 0.0) and bvh.joints[1].end_site == (0.0, 3.0, 0.0)
    assert bvh.joints[2].offset == (1.0, -2.0, 0.5) and bvh.joints[2].end_site is None
    assert bvh.joints[0].channels[3:] == ["Zrotation", "Xrotation", "Yrotation"]
    assert bvh.frame_time == 0.04 and bvh.frame_rate == pytest.approx(25.0)
    m = bvh.motion
    assert list(m.columns) == bvh.channels
    assert m.columns[:4].tolist() == [
        "Hips_Xposition",
        "Hips_Yposition",
        "Hips_Zposition",
        "Hips_Zrotation",
    ]
    assert m.columns[-1] == "Leg_Yrotation"
    assert np.array_equal(m.to_numpy(), np.arange(1, 37, dtype=float).reshape(3, 12))
    assert m.index.freq == pd.Timedelta("40ms") and m.index.name == "time"


def test_frame_count_mismatch(tmp_path):
    (tmp_path / "bad.bvh").write_text(TINY.replace("Frames: 3", "Frames: 4"))
    with pytest.raises(ValueError, match="4 frames x 12 channels = 48 values, found 36"):
        read_bvh(tmp_path / "bad.bvh")


def test_malformed_hierarchy(tmp_path):
    (tmp_path / "bad.bvh").write_text(
        TINY.replace(
            "CHANNELS 3 Zrotation Xrotation Yrotation\n    End",
            "CHANNELS 3 Zrotation Xrotation Wrotation\n    End",
        )
    )
    with pytest.raises(ValueError, match="unknown channel.*Wrotation"):
        read_bvh(tmp_path / "bad.bvh")
    (tmp_path / "bad2.bvh").write_text(TINY.replace("OFFSET 1.0 -2.0 0.5", "OFFSET 1.0 -2.0"))
    with pytest.raises(ValueError, match="bad2.bvh"):
        read_bvh(tmp_path / "bad2.bvh")


@pytest.mark.parametrize("name, frames", [("131_01", 994), ("131_02", 1247), ("131_03", 1102)])
def test_staged_cmu_bvh(data_dir, name, frames):
    bvh = read_bvh(data_dir / "cmu_mocap_bvh_sample" / f"{name}.bvh.gz")
    assert bvh.motion.shape == (frames, 96)
    assert len(bvh.joints) == 31 and bvh.joints[-1].name == "RThumb"
    assert round(bvh.frame_rate) == 120 and bvh.frame_time == pytest.approx(0.0083333)
    assert bvh.motion.index[-1] - bvh.motion.index[0] == pd.Timedelta(
        seconds=0.0083333 * (frames - 1)
    )
    if name == "131_01":
        assert bvh.motion.iloc[0, :3].tolist() == [5.23, 16.9002, -33.8986]
