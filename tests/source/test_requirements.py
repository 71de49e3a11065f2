"""The TensorFlow a repo declares: what each kind of declaration allows, and which folder's declaration counts."""

from pathlib import Path

import pytest

from advisor.cache import ResultCache
from advisor.config import Settings
from advisor.engine import analyze
from advisor.model import Confidence
from advisor.source.index import SourceIndex
from advisor.source.requirements import declaration_files, tensorflow_pins


@pytest.mark.parametrize("path, text, newest", [
    ("requirements.txt", "numpy\ntensorflow-gpu==1.12.0\n", (1, 12)),
    ("requirements.txt", "tensorflow>=2.10.0,<2.16.0  # the last Keras 2\n", (2, 15)),
    ("requirements.txt", "tensorflow<2.4.1\n", (2, 4)),
    ("requirements.txt", "tensorflow~=2.3.1\n", (2, 3)),
    ("requirements.txt", "tensorflow_cpu==2.3.0rc0\n", (2, 3)),
    ("requirements.txt", "tensorflow==1.*\n", (1, 999)),
    ("requirements.txt", "tensorflow >= 1.11.0   # CPU version\n", None),
    ("requirements.txt", "-r base.txt\ntensorflow-datasets==3.1.0\n", "undeclared"),
    ("setup.py", "setup(install_requires=['tensorflow-gpu>=1.15,<2.0', 'numpy'])\n", (1, 999)),
    ("pyproject.toml", '[project]\ndependencies = ["tensorflow==2.2.0"]\n', (2, 2)),
    ("pyproject.toml", '[tool.poetry.dependencies]\ntensorflow = "^2.10.1"\n', (2, 999)),
    ("pyproject.toml", '[tool.poetry.dependencies]\ntensorflow = "~2.3"\n', (2, 3)),
    ("environment.yml", "dependencies:\n  - tensorflow=1.15\n", (1, 15)),
    ("environment.yml", "dependencies:\n  - pip:\n    - tensorflow-gpu==2.1.0\n", (2, 1)),
    ("req.txt", "Keras==2.0.8\ntensorflow==1.3.0\n", (1, 3)),
    ("Dockerfile", "FROM tensorflow/tensorflow:1.12.0-gpu-py3\n", (1, 12)),
    ("Dockerfile", "FROM gcr.io/tensorflow/tensorflow:1.0.0\n", (1, 0)),
    ("Dockerfile", "FROM tensorflow/tensorflow:latest-gpu\n", "undeclared"),
    ("Dockerfile", "FROM tensorflow/tensorflow:${TF_VERSION}${GPU_TAG}\n", "undeclared"),
    ("Dockerfile", "#### FROM tensorflow/tensorflow:latest-gpu ####\n", "undeclared"),
    ("Dockerfile.gpu", "ARG URL=https://storage.googleapis.com/tensorflow/linux/gpu/"
                       "tensorflow_gpu-1.0.0-cp34-cp34m-linux_x86_64.whl\n", (1, 0)),
    ("Dockerfile", "RUN apt-get update && \\\n    pip install 'tensorflow < 2' && \\\n    pip install gym\n", (1, 999)),
    ("Dockerfile-gpu", "RUN conda install --quiet --yes 'tensorflow-gpu=1.0*'\n", (1, 0)),
    ("Dockerfile", "RUN conda install -y ipython tensorflow-gpu=1.14.0 keras=2.3.1\n", (1, 14)),
    ("Dockerfile", "RUN pip3 install numpy tensorflow pandas\n", "undeclared"),
    ("Dockerfile", "RUN pip install tensorflow-gpu==$TENSORFLOW_VERSION tensorflow-serving-api\n", "undeclared"),
])
def test_each_declaration_gives_the_newest_tensorflow_it_allows(path, text, newest):
    pins = tensorflow_pins({Path(path): text.encode()})
    if newest == "undeclared":
        assert pins == {}
    else:
        pin = pins[Path(".")]
        assert (pin.newest if pin is not None else None) == newest


def test_the_most_permissive_declaration_of_a_folder_counts_and_an_open_one_leaves_it_open():
    gpu_and_cpu = tensorflow_pins({Path("requirements.txt"): b"tensorflow==2.11.1\n",
                                   Path("requirements-gpu.txt"): b"tensorflow-gpu==2.12.0\n"})
    assert gpu_and_cpu[Path(".")].newest == (2, 12)
    one_open = tensorflow_pins({Path("requirements.txt"): b"tensorflow==2.3.0\n",
                                Path("requirements-dev.txt"): b"tensorflow\n"})
    assert one_open[Path(".")] is None


def test_an_unversioned_dockerfile_leaves_the_requirements_pin():
    pins = tensorflow_pins({Path("requirements.txt"): b"tensorflow==1.14.0\n",
                            Path("Dockerfile.gpu"): b"FROM tensorflow/tensorflow:latest-gpu-py3-jupyter\n",
                            Path("Dockerfile"): b"RUN pip install -U numpy tensorflow\n"})
    assert pins[Path(".")].newest == (1, 14)


def test_a_dockerfile_declares_for_its_folder_and_one_in_a_docker_folder_for_nothing(tmp_path):
    (tmp_path / "Dockerfile").write_text("FROM tensorflow/tensorflow:1.15.5-gpu-py3\n")
    (tmp_path / "tools").mkdir()
    (tmp_path / "tools" / "docker").mkdir()
    (tmp_path / "tools" / "docker" / "Dockerfile").write_text("RUN pip3 install tensorflow==2.2.0\n")
    (tmp_path / "tools" / "colab.py").write_text("import tensorflow as tf\n")
    (tmp_path / "train.py").write_text("import tensorflow as tf\n")
    index = SourceIndex.read(tmp_path)
    pins = {module.path.as_posix(): index.tensorflow_pin(module) for module in index.modules}
    assert pins["train.py"].newest == (1, 15) and pins["train.py"].path == Path("Dockerfile")
    assert pins["tools/colab.py"].path == Path("Dockerfile")


def test_a_module_takes_the_pin_of_its_nearest_declaring_folder(tmp_path):
    (tmp_path / "requirements.txt").write_text("tensorflow==1.15.4\n")
    (tmp_path / "tf2").mkdir()
    (tmp_path / "tf2" / "requirements.txt").write_text("tensorflow\n")
    (tmp_path / "tf2" / "run.py").write_text("import tensorflow as tf\n")
    (tmp_path / "tf1").mkdir()
    (tmp_path / "tf1" / "run.py").write_text("import tensorflow as tf\n")
    index = SourceIndex.read(tmp_path)
    pins = {module.path.as_posix(): index.tensorflow_pin(module) for module in index.modules}
    assert pins["tf2/run.py"] is None
    assert pins["tf1/run.py"].newest == (1, 15) and pins["tf1/run.py"].path == Path("requirements.txt")
    assert set(declaration_files(tmp_path, [Path("tf1/run.py")])) == {Path("requirements.txt")}


def test_editing_the_pin_is_not_answered_from_the_cache(tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "data.py").write_text("import tensorflow as tf\n\ndef read(path):\n"
                                  "    return tf.py_func(load_image, [path], tf.uint8)\n")
    # TensorFlow 1.x code with no declared version: the rename is only possible (1.14+); a pin before 1.14 drops it.
    settings = Settings(select=("TFS001",), cache_dir=tmp_path / "cache", min_confidence=Confidence.POSSIBLE)
    cache = ResultCache("analyze", settings)
    assert [f.code for f in analyze(repo, None, settings, cache=cache).findings] == ["TFS001"]
    (repo / "requirements.txt").write_text("tensorflow-gpu==1.12.0\n")
    assert analyze(repo, None, settings, cache=cache).findings == []


def test_unreadable_or_garbled_declarations_declare_nothing(tmp_path):
    """A FIFO named requirements.txt cannot hang the run; binary garbage and invalid specifiers pin nothing."""
    import os

    (tmp_path / "train.py").write_text("import tensorflow as tf\n")
    os.mkfifo(tmp_path / "requirements.txt")
    (tmp_path / "requirements-gpu.txt").write_bytes(b"\xff\xfe\x00tensorflow==\x80\x81\ntensorflow==1.x\n")
    (tmp_path / "setup.py").write_bytes(b"install_requires=['tensorflow<=not-a-version']\n")
    declarations = declaration_files(tmp_path, [Path("train.py")])
    assert Path("requirements.txt") not in declarations
    assert tensorflow_pins(declarations) == {}
