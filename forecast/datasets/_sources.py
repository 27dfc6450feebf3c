# ruff: noqa: E501  (checksum tables)
"""Public download locations and sha256 checksums of the catalogue's files.

Checksums are of the uncompressed files as published at the pinned commits (the staged
copies in the shared data folder are the same bytes, gzip-compressed). Used by
:func:`forecast.datasets.fetch`.
"""

from __future__ import annotations

from urllib.parse import quote

_RAW = "https://raw.githubusercontent.com"

ENTSOE_DE_COMMIT = "d7c1cfa5cc6233006af5177dd4feb39c5a90d670"  # Lere16/StorageDispoatchTariff
ENTSOE_CH_COMMIT = "62a6b26b1ee2588a3dba0e4242512e54dc24f04d"  # AAV77/Sustainability_Analytics
CMU_EXPMAP_COMMIT = "f27ccb4ed5b0568cde2b7cf096dd2683c901b4d8"  # chaneyddtt/Convolutional-...
CMU_BVH_COMMIT = "c9072174fe89e0bf9776a092179b464ea39975e5"  # yuki-koyama/bvh11
ETT_COMMIT = "1d16c8f4f943005d613b5bc962e9eeb06058cf07"  # zhouhaoyi/ETDataset
DE_WEATHER_COMMIT = "f0cf404b21c8301d957bc590619e5bf149c2c213"  # YukaNakamoto/LSDI-Project-
DE_WEATHER_SHA256 = "74a4f173dc263de2c6d559906bbc24c42d4d303babcdfda627cdabdc410f89d6"

ENTSOE_DE_SHA256 = {
    "entsoe_DE_total_load_15min_2015.csv": "db8b4eb7c0ddf2bfac9890e1b24a155421f7cfb7fe7abbeaadeaf7fa0b9af92e",
    "entsoe_DE_total_load_15min_2016.csv": "ba10170c133024ef284140ac4bda22c4a98804e6d3759690f111cad29b91c5d9",
    "entsoe_DE_total_load_15min_2017.csv": "5b1a547221ae0d2979bbdf99886c4e45b4401a134ac87f9f8e22b2a4de3ab860",
    "entsoe_DE_total_load_15min_2018.csv": "f45ab106fb873584c75d038169e64bd0502faa58b618bd49145679f77b094e57",
    "entsoe_DE_total_load_15min_2019.csv": "2f60b64ca760ec221df421e957cd1dea2e0b3c59e9e5ec7abf32b22349673066",
    "entsoe_DE_total_load_15min_2020.csv": "8f63b189e7c0ef98aa72a1dc15a9c1176e8fb00d7e00adc6947ba4528772a8c4",
    "entsoe_DE_total_load_15min_2021.csv": "288d28ba0c54e7c53c3294f700760fbc01082491b058f2b2595264159cc29f16",
    "entsoe_DE_total_load_15min_2022.csv": "291033889a266e362b1e35ecd584aa77c8cd8d8a7ff3bb80a31dc6aba99022dd",
    "entsoe_DE_total_load_15min_2023.csv": "58f1eb506b5db3fb62aac892a13eab9ecc06583e67f2f0297b48f16254c3e7a1",
}
ENTSOE_CH_SHA256 = {
    "entsoe_CH_total_load_hourly_2015.csv": "58d6634df91adde87fbca287e358ff5218e12f0f789ecec61c0123c24b0915ef",
    "entsoe_CH_total_load_hourly_2016.csv": "b1cb163fbc33c99af5df3e1a406492561066382227d0c0d725f0ae38fbdd7045",
    "entsoe_CH_total_load_hourly_2017.csv": "0bd3a8b7be78e57a2d694e24cfabd5ef3659653349d58e2f271041a7a6062902",
    "entsoe_CH_total_load_hourly_2018.csv": "98b5bcf139975990c0de48e689e26fe993474d9803d5d2b8af74080407e6af90",
    "entsoe_CH_total_load_hourly_2019.csv": "d44e62a502c8ad75066490b7e5bbef188d3ab87322ec3ff67d3556e50d17d7ca",
    "entsoe_CH_total_load_hourly_2020.csv": "6f6eb1bee164671244e4126b648129632d4a48299ac1c9392d6b1006f2af242a",
    "entsoe_CH_total_load_hourly_2021.csv": "0d70ff91d059e14bee7ab13f8b36d1ab2aeaa88d143eabd00ce7c7985ebe89a2",
    "entsoe_CH_total_load_hourly_2022.csv": "d9b94ae55861754877607f07723137f88ed5b72d876460aa8cce515c04b2e366",
    "entsoe_CH_total_load_hourly_2023.csv": "57b53a716028b0b3cb3b42bc935ca3b1d59fd6678e23a43313d96ce59e2e1a2c",
    "entsoe_CH_total_load_hourly_2024.csv": "8b469c1c6541ebafc1d02328dfd12153e9d10eea3d798a95919b4fbb6fea9c71",
}
CMU_BVH_SHA256 = {
    "131_01.bvh": "525a261b085d44ea302205f7bbdf824c20ca8256b9e0797aeae43183326fce27",
    "131_02.bvh": "fe7882961ae1ecaf62273424a7ac64905fd20b0596051c78f3d1488dfa66d708",
    "131_03.bvh": "f8b19d31da5d596e523c9bab7ace69756afd02c38f61e5cac3141e5b579dbb4a",
}
CMU_EXPMAP_SHA256 = {
    "test/basketball/basketball_1.txt": "85e29ef050c68ebc1f6a865bd0f9bbbeed11af124cf2477b3317cee42307c701",
    "test/jumping/jumping_1.txt": "bba6e585edc8efd6ca5a5f9820878a7eebe42e6bc78396d7c2ec079f43d58968",
    "test/running/running_1.txt": "e564cdc47db7bddb8dbe1db365072fa85b118df0ce92333ca59a9b986355c96a",
    "test/soccer/soccer_1.txt": "1942216b67a39128edb090db164a1fb2a2f1fcfc240413e93c5f6722bed8f4b9",
    "test/walking/walking_1.txt": "189d6f44e6193520e6438692bce77c6b6594a8c26ead09d90b63c88acbbe3363",
    "test/washwindow/washwindow_1.txt": "dbcd144dac175736b0d8c24e99f4c3a7bbd642b20bb298f3b29fea510c19cb87",
    "train/basketball/basketball_1.txt": "7c21f4c0d861a5489e0cde47026eaf97707fb5dd0d29adf19addd6c97bc3736c",
    "train/basketball/basketball_2.txt": "cc6c19845c755ee255495cf26d2b068471b1fadc01d18aeaa7498c66392a1680",
    "train/basketball/basketball_3.txt": "59c8b75e5e930c5dbe8a65e4e0a1012ca2fd3e9725137f755aeca2bca4e8fed8",
    "train/basketball/basketball_4.txt": "91771bae89ba73abc131c00d027aa23904fa8a99095f3eee2aa4a38c39fe40eb",
    "train/basketball/basketball_5.txt": "177a424d5417e99a846350e8b7841598825d1b20792ad10d5023e61a2f7ae77f",
    "train/basketball_signal/basketball_signal_1.txt": "e2daa3353de5109dd00e3aa2003f230a708504a0e00951613d333d97688505a7",
    "train/basketball_signal/basketball_signal_2.txt": "838a28e6b67b8d05ab56145899240fc07ff505e80828dd5ab1e1f55c0fd917ef",
    "train/basketball_signal/basketball_signal_3.txt": "86c5edb26464d30b04584fed97d0219ba73bd4d70b1760a46631a0d0f52a0c3e",
    "train/basketball_signal/basketball_signal_4.txt": "bc7c9c5ca4cd282c2123da2802d4bf64275f8ae60aca0c2f6dc2c961d4755c6d",
    "train/basketball_signal/basketball_signal_5.txt": "abfd225087b08a6e245fb213878d8633061a733b8bf61f0cf19ce78d156a68a5",
    "train/directing_traffic/directing_traffic_1.txt": "1686186d9ac20518fcf57ae092f7acfbad31ba4d8f9d8b3a396309a73e525804",
    "train/directing_traffic/directing_traffic_4.txt": "ccb318b5de3588924f36e6dd5e8529cb604fbb5343846b4ec0a7b3de6e216dec",
    "train/jumping/jumping_1.txt": "1441aa13e9ed397d88603db851596f11721d15f31508134c3d260e0948a91b6d",
    "train/jumping/jumping_2.txt": "d1d1e3c8776771d3bb03d2a6e43d9ae34d0cc972222d2168c4af361ee9677dbf",
    "train/jumping/jumping_3.txt": "96f03066d3c808b334bae1a12e6a15b2315cacbda8df1160cd3ae16dcc2ac0c7",
    "train/jumping/jumping_4.txt": "866f1b2e5e879c24c0b369b03de17bad9b60441d7417e5b4e6e44bf2d59ca58a",
    "train/jumping/jumping_5.txt": "59db2b8a4639378a0de9b572d951c300e560e2e29ef3ff543cef502394ed678b",
    "train/running/running_1.txt": "7fa23d484e42736796a831543879d694bf00ced74967ef89b30c36d478aa97ec",
    "train/running/running_2.txt": "8e46764e910f6756b335af6a2b12d882c1400acd7c7761f850cbc68455d90320",
    "train/running/running_3.txt": "9dae5797ce0b0bd429330b1ce79161159b8c095ae9430f99a09c482c75b4d60f",
    "train/running/running_4.txt": "ffb983f368ad454fbe43b861deb7b6d630d4e604a48a7928275a03e5beb7ec4f",
    "train/running/running_5.txt": "c76605484e2434da99de1320fe2f9f40e969833e62565d79dbda08f4e360d086",
    "train/soccer/soccer_1.txt": "c238012cd3dd2147f77a9f78b9da9096341848c789b8cf2409adecbff195fba2",
    "train/soccer/soccer_2.txt": "b7eb2d445332867815336ea417bdf67a86a29e29554322dc7c6fab8e47d31783",
    "train/soccer/soccer_3.txt": "1cad2b1fe63b81f419e4e65ace483328d9f99293083f779199c5f037df0a28d2",
    "train/soccer/soccer_4.txt": "5355451997838daeff09b7c9523cc0b1b8bd39ebfc374b65f4e996eb16cf7190",
    "train/soccer/soccer_5.txt": "491d3dce18ceb63e04c04e03f25fd6da578777810e7388ca699758fbf1465102",
    "train/walking/walking_1.txt": "594fd1ec95dd385dfaa04e4230ebc047b4917ecc0615629a6a92f11d7dd3ca49",
    "train/walking/walking_2.txt": "9f00af52c9361f16df6820846141e282b4d4958edae4952c486f141da8ff7f92",
    "train/walking/walking_3.txt": "f5ff48a358d4de2eb95a10d69d0a7195bfb4da51ee6203aab3bf842bac352d03",
    "train/walking/walking_4.txt": "608910282c0ad1cbeef718cdd835481a703557146524b68eefbb5ec792544e61",
    "train/walking/walking_5.txt": "a955054b2a4fd3207f2feac395c0e51e3468daff2b5d25eb6d5fd7e584b44efe",
}
ETT_SHA256 = {
    "ETTh1.csv": "f18de3ad269cef59bb07b5438d79bb3042d3be49bdeecf01c1cd6d29695ee066",
    "ETTh2.csv": "a3dc2c597b9218c7ce1cd55eb77b283fd459a1d09d753063f944967dd6b9218b",
}


def _entsoe_export_name(year: int) -> str:
    return f"Total Load - Day Ahead _ Actual_{year}01010000-{year + 1}01010000.csv"


def entsoe_de_files() -> list[tuple[str, str, str]]:
    """``(url, relative path, sha256)`` of the German ENTSO-E exports 2015-2023."""
    out = []
    for rel, sha in ENTSOE_DE_SHA256.items():
        year = int(rel[-8:-4])
        path = quote(f"data/{_entsoe_export_name(year)}")
        out.append((f"{_RAW}/Lere16/StorageDispoatchTariff/{ENTSOE_DE_COMMIT}/{path}", rel, sha))
    return out


def entsoe_ch_files() -> list[tuple[str, str, str]]:
    """``(url, relative path, sha256)`` of the Swiss ENTSO-E exports 2015-2024."""
    out = []
    for rel, sha in ENTSOE_CH_SHA256.items():
        year = int(rel[-8:-4])
        path = quote(_entsoe_export_name(year))
        out.append((f"{_RAW}/AAV77/Sustainability_Analytics/{ENTSOE_CH_COMMIT}/{path}", rel, sha))
    return out


def cmu_expmap_files() -> list[tuple[str, str, str]]:
    """``(url, relative path, sha256)`` of the CMU-mocap benchmark files (Li et al. 2018)."""
    repo = "chaneyddtt/Convolutional-Sequence-to-Sequence-Model-for-Human-Dynamics"
    base = f"{_RAW}/{repo}/{CMU_EXPMAP_COMMIT}/data/cmu_mocap"
    return [(f"{base}/{rel}", rel, sha) for rel, sha in CMU_EXPMAP_SHA256.items()]


def cmu_bvh_files() -> list[tuple[str, str, str]]:
    """``(url, relative path, sha256)`` of the three CMU subject-131 BVH files."""
    base = f"{_RAW}/yuki-koyama/bvh11/{CMU_BVH_COMMIT}/resources"
    return [(f"{base}/{rel}", rel, sha) for rel, sha in CMU_BVH_SHA256.items()]


def ett_files() -> list[tuple[str, str, str]]:
    """``(url, relative path, sha256)`` of ETTh1."""
    base = f"{_RAW}/zhouhaoyi/ETDataset/{ETT_COMMIT}/ETT-small"
    return [(f"{base}/{rel}", rel, sha) for rel, sha in ETT_SHA256.items()]


def de_weather_files() -> list[tuple[str, str, str]]:
    """``(url, relative path, sha256)`` of the hourly 23-city German weather mean."""
    url = f"{_RAW}/YukaNakamoto/LSDI-Project-/{DE_WEATHER_COMMIT}/hand_in/data/germany_weather_average.csv"
    return [(url, "openmeteo_de_23city_mean_hourly_2018_2025.csv", DE_WEATHER_SHA256)]


#: Open Power System Data, time series package 2020-10-06 (no checksum pinned here).
OPSD_60MIN_URL = (
    "https://data.open-power-system-data.org/time_series/2020-10-06/"
    "time_series_60min_singleindex.csv"
)
