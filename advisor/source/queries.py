"""Questions rules ask about the source, answered once per run: training steps and loops, what runs per element or per
step, Python that changes meaning under ``tf.function``, host work, Keras model construction and output layers.

A :class:`SourceQueries` wraps one :class:`~advisor.source.index.SourceIndex`; answers that scan the whole repo are
computed on first use and kept for the run, so rules that ask the same question share the work.
"""

from __future__ import annotations

import builtins
import io
import operator
import re
import tokenize
from collections import Counter
from dataclasses import dataclass, field, replace
from enum import Enum
from functools import cached_property
from pathlib import Path
from typing import Callable, Iterable, Iterator, Sequence

import libcst as cst
import libcst.helpers
import libcst.matchers as m
import networkx as nx

from ..model import Location, Reach
from .facts import (CallSite, ClassInfo, FunctionInfo, ModuleInfo, Pipeline, Sink, Stage, counted_stop, loop_element,
                    loop_iterable)
from .index import MAIN_BLOCK, SourceIndex
from .names import GRADIENT_TAPE, STAR_DEPTH, TF_FUNCTION_WRAPPERS, import_names, tf1_only
from .pipelines import ALL_SOURCES, NOT_TRAINING_NAME, PARTIAL, PROGRESS_BARS, named_for_evaluation
from .raising import (DEFINED_EVERYWHERE, DYNAMIC_BINDING, bound_names, evaluated_every_time, header_expressions,
                      inner_blocks, is_generator, may_leave_early, rejected_arguments)
from .syntax import argument, argument_value, brief, literal, method_name, parameter_names
from .visitors import visit_reading

UPDATE_METHODS = frozenset({"apply_gradients", "minimize"})
VARIABLE_ASSIGNMENTS = frozenset({"assign", "assign_add", "assign_sub"})
ASSIGN_OPS = frozenset({"tensorflow.assign", "tensorflow.assign_add", "tensorflow.assign_sub"})
TF24 = (2, 4)  # the release that named `tf.data.AUTOTUNE` (1.x and 2.0-2.3 spell it `tf.data.experimental.AUTOTUNE`)
# Calls that open a file whose lines a loop can walk.
FILE_OPENERS = frozenset({"builtins.open", "io.open", "codecs.open", "tensorflow.io.gfile.GFile",
                          "tensorflow.gfile.GFile", "tensorflow.gfile.Open"})
# Optimizers that run a whole optimization through a session from Python (SciPy's L-BFGS): no update op of their own.
EXTERNAL_OPTIMIZERS = frozenset(f"tensorflow.contrib.opt.{name}" for name in (
    "ScipyOptimizerInterface", "ExternalOptimizerInterface"))
# TensorFlow 1.x helpers that build the training op from a loss and an optimizer.
GRAPH_TRAIN_OPS = frozenset({"tensorflow.contrib.slim.learning.create_train_op",
                             "tensorflow.contrib.training.create_train_op", "tensorflow.contrib.layers.optimize_loss"})
_NEXT_CALL = m.Call(func=m.Name("next"), args=[m.Arg()])
# The methods of a Python batch source that make each batch: an iterator's (Python 2's `next` too), a
# `keras.utils.Sequence`'s, a subclass of Keras' image `Iterator`'s.
BATCH_METHODS = frozenset({"__next__", "__iter__", "next", "__getitem__", "_get_batches_of_transformed_samples"})
KERAS_FITS = frozenset({"fit", "fit_generator"})
# `fit`'s arguments that make it run a validation pass every epoch.
VALIDATION_ARGUMENTS = ("validation_data", "validation_split")
# Methods Keras (or TensorFlow, an Estimator's hooks, a thread's `start`) calls on a repo's objects whenever they are
# used; not `train_step`, which runs only when code calls `fit` by name.
FRAMEWORK_CALLED_METHODS = frozenset({
    "call", "build", "get_config", "from_config", "compute_output_shape", "get_updates", "apply_gradients", "begin",
    "before_run", "after_run", "after_create_session", "end", "run"})
# Keras' Python-side image iterators: each batch is read from disk and augmented on the host.
KERAS_IMAGE_ITERATORS = frozenset({"flow", "flow_from_directory", "flow_from_dataframe"})
# ImageDataGenerator settings that transform no image at random: arithmetic on arrays already in memory.
IMAGE_SETTINGS_WITHOUT_WORK = frozenset({"rescale", "dtype", "data_format", "validation_split",
                                         "featurewise_center", "samplewise_center", "featurewise_std_normalization",
                                         "samplewise_std_normalization"})
_NUMBER = m.Integer() | m.Float() | m.Imaginary()  # (libcst matches no node by the abstract BaseNumber)
_GRADIENT = m.Attribute(attr=m.Name("gradient"))
_UPDATE_CALL = m.Call(func=m.Attribute(attr=m.Name(value=m.MatchIfTrue(UPDATE_METHODS.__contains__))))
_GRADIENT_CALL = m.Call(func=_GRADIENT)
VALUE_CONVERSIONS = frozenset({"float", "int", "bool"})
TENSOR_APIS = ("tensorflow.", "keras.")
# TensorFlow's calls that make a tensor of the Python or NumPy values they are given.
HOST_DATA_TENSORS = frozenset({"tensorflow.convert_to_tensor", "tensorflow.constant"})
# TensorFlow's calls that answer with Python values about the machine, files or settings (memory in use, devices,
# paths), not tensors: reading them waits for no step.
HOST_VALUE_APIS = ("tensorflow.config.", "tensorflow.io.gfile.", "tensorflow.test.", "tensorflow.sysconfig.",
                   "tensorflow.executing_eagerly")
# Calls that make every tf.function run eagerly (a debugging switch).
EAGER_SWITCHES = frozenset({"tensorflow.config.run_functions_eagerly",
                            "tensorflow.config.experimental_run_functions_eagerly"})

KERAS_MODEL = frozenset({"keras.Model", "keras.models.Model"})
SEQUENTIAL = frozenset({"keras.Sequential", "keras.models.Sequential"})
KERAS_INPUT = frozenset({"keras.Input", "keras.layers.Input"})
MODEL_BUILDING_PREFIXES = ("keras.layers.", "keras.applications.")
# The model classes of KerasHub and its predecessors: backbones, and task models that add a head to one.
KERAS_MODEL_LIBRARIES = ("keras_hub.models.", "keras_nlp.models.", "keras_cv.models.")
# Architectures built by a library's factory: KerasHub/KerasNLP/KerasCV presets, bert4keras and its TensorFlow 2 port
# tf2_bert, keras-bert loading a released checkpoint or its configuration, bert-for-tf2's layer made from a
# checkpoint's parameters (Hugging Face's TF models: HUGGING_FACE_MODEL).
PRETRAINED_FACTORIES = ((KERAS_MODEL_LIBRARIES, (".from_preset",)),
                        (("bert4keras.models.", "tf2_bert.models."), (".build_transformer_model",)),
                        (("keras_bert.",), (".load_trained_model_from_checkpoint", ".build_model_from_config")),
                        (("bert.",), (".BertModelLayer.from_params",)))
# Hugging Face's TensorFlow models (a base model, or one with a head: `TFBertForSequenceClassification`), loaded or
# built from a configuration, by any module path transformers has given them (`transformers.TFAutoModel
# .from_pretrained`, `transformers.modeling_tf_gpt2.TFGPT2LMHeadModel(config)`); not their tokenizers.
HUGGING_FACE_MODEL = re.compile(r"transformers\.(\w+\.)*TF\w*(Model|For)\w*(\.from_pretrained|\.from_config)?")
# The architectures keras.applications builds, by the start of their names (VGG16, ResNet50V2, EfficientNetB0...).
APPLICATION_FAMILIES = ("VGG", "ResNet", "Inception", "Xception", "MobileNet", "DenseNet", "NASNet", "EfficientNet",
                        "ConvNeXt", "RegNet")
# Presets of those libraries that load no network: `keras_hub.models.GemmaTokenizer.from_preset(...)`.
PREPROCESSING_PRESETS = ("Tokenizer", "Preprocessor", "ImageConverter", "AudioConverter")
# TF-Slim's model library: each network function builds a whole ImageNet architecture (ResNet, Inception, VGG);
# its modules' ``*_arg_scope`` functions and ``resnet_utils`` only set up or help build one.
SLIM_NETS = ("tensorflow.contrib.slim.nets.", "tensorflow.contrib.slim.python.slim.nets.", "tf_slim.nets.")
# Whole networks other libraries build: the TensorFlow tutorials' pix2pix U-Net generator and PatchGAN
# discriminator (`tensorflow_examples`, which CycleGAN's and pix2pix's tutorials train at 256 pixels), and
# segmentation_models' encoder-decoders on an ImageNet backbone (`sm.Unet("resnet34")`), and keras_segmentation's
# (`vgg_unet(n_classes=51, input_height=416, input_width=608)`).
LIBRARY_NETWORKS = frozenset({"tensorflow_examples.models.pix2pix.pix2pix.unet_generator",
                              "tensorflow_examples.models.pix2pix.pix2pix.discriminator",
                              *(f"segmentation_models.{network}" for network in ("Unet", "FPN", "Linknet", "PSPNet")),
                              *(f"keras_segmentation.models.{family}.{backbone}_{family}"
                                for family in ("unet", "segnet", "pspnet")
                                for backbone in ("vgg", "resnet50", "mobilenet")),
                              *(f"keras_segmentation.models.fcn.fcn_{stride}_{backbone}"
                                for stride in (8, 32) for backbone in ("vgg", "resnet50", "mobilenet"))})
# Any of these, or a "mixed_..." policy string anywhere, means the repo already chose its precision.
MIXED_PRECISION_APIS = frozenset({
    "keras.mixed_precision.set_global_policy", "keras.mixed_precision.Policy", "keras.mixed_precision.DTypePolicy",
    "keras.mixed_precision.experimental.set_policy", "keras.mixed_precision.experimental.Policy",
    "keras.mixed_precision.experimental.LossScaleOptimizer",
    "keras.mixed_precision.LossScaleOptimizer", "keras.config.set_dtype_policy", "keras.DTypePolicy",
    "keras.dtype_policies.DTypePolicy", "tensorflow.train.experimental.enable_mixed_precision_graph_rewrite",
    "tensorflow.compat.v1.train.experimental.enable_mixed_precision_graph_rewrite",
    "tensorflow.mixed_precision.enable_mixed_precision_graph_rewrite",
    "tensorflow.contrib.tpu.bfloat16_scope", "tensorflow.tpu.bfloat16_scope",
})
# Policy strings and 16-bit dtype names (`dtype="float16"`); the graph rewrite is also turned on by
# `tf.config.optimizer.set_experimental_options({"auto_mixed_precision": True})`. (Not by the environment variable
# TF_ENABLE_AUTO_MIXED_PRECISION: only NVIDIA's own builds read it; stock TensorFlow ignores it.)
MIXED_POLICIES = frozenset({"mixed_float16", "mixed_bfloat16", "float16", "bfloat16", "auto_mixed_precision"})
# Calls that hand out their first argument's items unchanged: `iter(batches)`, a progress bar `tqdm(batches)`, the
# first n of them (`islice(minibatch_generator, 0, TRAINING_STEPS)`).
ITERATOR_WRAPPERS = frozenset({"builtins.iter", "itertools.islice"}) | PROGRESS_BARS
# What only a program that builds a graph and runs it in a session calls, through `tf.compat.v1` as much as through
# TensorFlow 1.x itself (a port to TensorFlow 2 that kept its session).
# Calls that make TensorFlow 2 run as TensorFlow 1.x did: graphs, sessions, Keras' old loops.
EAGER_TURNED_OFF = frozenset({"tensorflow.disable_eager_execution", "tensorflow.disable_v2_behavior"})
GRAPH_MODE_API = EAGER_TURNED_OFF | frozenset(f"tensorflow.{name}" for name in (
    "Session", "InteractiveSession", "placeholder", "placeholder_with_default", "global_variables_initializer",
    "train.MonitoredTrainingSession"))
# TensorFlow 1.x API that `tf.compat.v1` keeps but eager execution refuses: code calling it there builds graphs.
GRAPH_ONLY_COMPAT_API = frozenset({"tensorflow.gradients"})
# Libraries of reinforcement-learning environments: their `make`/`load` make one.
ENVIRONMENT_LIBRARIES = ("gym.", "gymnasium.", "retro.", "tf_agents.environments.")
# Runners that call the script's `main` when given no function: `tf.app.run()`.
APP_RUNNERS = frozenset({"tensorflow.app.run", "tensorflow.compat.v1.app.run"})
# A TensorFlow 1.x program that turns eager execution on runs its updates eagerly: no graph, no session.
EAGER_EXECUTION = frozenset({"tensorflow.enable_eager_execution", "tensorflow.contrib.eager.enable_eager_execution"})
# TF1 graphs (TPU ones above all) compute in 16 bits by casting their inputs: `tf.cast(images, tf.bfloat16)`.
SIXTEEN_BIT_DTYPES = frozenset({"tensorflow.bfloat16", "tensorflow.float16"})
# Keras' copies of a model on several GPUs (`multi_gpu_model(model, gpus=2)`, under `keras.utils` and, in Keras 2.0
# and 2.1, its `training_utils` and `multi_gpu_utils` modules): training the copies trains the model.
MODEL_REPLICATORS = frozenset(f"keras.utils.{module}multi_gpu_model" for module in (
    "", "training_utils.", "multi_gpu_utils."))
# What only a program meant for an accelerator asks for: GPU options and memory growth, Keras' copies of a model on
# several GPUs, a TPU's strategy. (Not `MirroredStrategy`: it runs on whatever devices there are, the CPU too, and
# guides show it on toy models; nor a check whether a GPU is there, which notebooks print.)
# The fields of a `tf.Summary.Value` built on the host that hold more than a number, and the summary they make.
HOST_SUMMARY_FIELDS = {"image": "image", "histo": "histogram", "audio": "audio"}
# `tf.config.set_visible_devices([], "GPU")`: no GPU for the rest of the run.
HIDING_DEVICES = frozenset({"tensorflow.config.set_visible_devices",
                            "tensorflow.config.experimental.set_visible_devices"})
# The words a module that configures GPUs writes (a text test before walking it).
GPU_SETTING_WORDS = ("gpu_options", "CUDA_VISIBLE_DEVICES", "device_count", "set_visible_devices")
ACCELERATOR_APIS = {
    "tensorflow.config.experimental.set_memory_growth": "gpu", "tensorflow.GPUOptions": "gpu",
    **dict.fromkeys(MODEL_REPLICATORS, "gpu"),
    "tensorflow.distribute.TPUStrategy": "tpu", "tensorflow.distribute.experimental.TPUStrategy": "tpu",
    "tensorflow.distribute.cluster_resolver.TPUClusterResolver": "tpu",
    "tensorflow.contrib.cluster_resolver.TPUClusterResolver": "tpu",
    "tensorflow.tpu.experimental.initialize_tpu_system": "tpu",
}
# Placing ops on `"/gpu:0"` asks for a GPU.
DEVICE_PLACEMENT = "tensorflow.device"
# Keywords only Keras' Model.compile takes: they tell `model.compile(...)` from `re.compile(...)`.
COMPILE_KEYWORDS = frozenset({"optimizer", "loss", "metrics", "loss_weights", "weighted_metrics", "run_eagerly",
                              "steps_per_execution", "jit_compile", "auto_scale_loss"})

# Where num_parallel_calls sits among the positional parameters of each dataset method that takes it.
NUM_PARALLEL_CALLS_POSITION = {"map": 1, "interleave": 3, "batch": 2}
# Dataset methods whose first argument is a function tf.data traces and calls per element.
FUNCTION_STAGES = {"map": "map_func", "flat_map": "map_func", "interleave": "map_func", "filter": "predicate",
                   "map_with_legacy_function": "map_func"}
# Transformations handed to ``Dataset.apply`` that call a function per element (TF1's fused and parallel versions).
APPLIED_FUNCTION_STAGES = frozenset({
    f"tensorflow.{package}.{name}" for package in ("data.experimental", "contrib.data")
    for name in ("parallel_interleave", "map_and_batch")})
# Methods Keras traces into a graph by itself (no tf.function decorator in sight).
KERAS_TRACED = {"keras.Model": ("train_step", "test_step", "predict_step", "call"),
                "keras.models.Model": ("train_step", "test_step", "predict_step", "call"),
                "keras.layers.Layer": ("call",), "keras.Layer": ("call",)}
STEP_METHODS = frozenset({"train_step", "call"})  # of those, what a training step runs

# What a call costs on the host, by the callee's canonical name (exact, or a prefix ending in ".").
HOST_SYNC = "a device-to-host sync"
COSTLY_NAMES = {
    "builtins.open": "file I/O", "builtins.print": "console output", "os.fsync": "file I/O",
    "json.dump": "file I/O", "pickle.dump": "file I/O", "numpy.save": "file I/O", "numpy.savez": "file I/O",
    "numpy.savetxt": "file I/O", "logging.": "logging", "requests.": "network I/O", "urllib.": "network I/O",
    "socket.": "network I/O", "shutil.": "file I/O", "matplotlib.": "plotting", "time.sleep": "sleeping",
    "builtins.float": f"{HOST_SYNC} (float())", "keras.ops.convert_to_numpy": HOST_SYNC,
    "tensorflow.summary.image": "image summaries", "tensorflow.summary.histogram": "histogram summaries",
    "keras.saving.save_model": "model saving", "keras.models.save_model": "model saving",
}
# Keras' reads of variables to NumPy: a copy to the host, costly when it walks a model's weights.
KERAS_VALUE_READS = frozenset({"keras.backend.get_value", "keras.backend.batch_get_value"})
WEIGHT_LISTS = m.Attribute(attr=m.Name("weights") | m.Name("trainable_weights") | m.Name("trainable_variables")
                           | m.Name("variables") | m.Name("non_trainable_weights"))
# Method calls whose receiver advisor cannot type, known by name alone.
COSTLY_METHODS = {
    "numpy": f"{HOST_SYNC} (.numpy())", "item": f"{HOST_SYNC} (.item())",
    "get_weights": "copying weights to the host (get_weights)", "save": "model or checkpoint saving",
    "save_weights": "model or checkpoint saving", "savefig": "plotting", "write": "file I/O", "flush": "file I/O",
}
# Ops that make a function stateful: random ops with hidden state, and Python called from the graph. tf.data's
# run-time map parallelization leaves stateful functions serial ("stateless" random ops are not stateful).
STATEFUL_OP_PREFIXES = ("tensorflow.random.", "tensorflow.random_", "tensorflow.image.random_",
                        "tensorflow.image.sample_distorted_bounding_box", "tensorflow.truncated_normal",
                        "tensorflow.multinomial", "tensorflow.nn.dropout", "keras.layers.Random",
                        "tensorflow.py_function", "tensorflow.numpy_function", "tensorflow.py_func")
# TensorFlow ops that only restate shapes or types, or make constants: a map running nothing else per element
# (``set_shapes``, a synthetic constant image) has no work worth parallelizing. ``decode_raw`` only reads the bytes
# as numbers (MNIST's one-byte labels), no decoding. Python the map function calls (builtins, repo helpers' own
# Python) runs once, when tf.data traces it, not per element.
METADATA_OPS = frozenset(f"tensorflow.{op}" for op in (
    "reshape", "ensure_shape", "cast", "identity", "zeros", "ones", "zeros_like", "ones_like", "constant", "fill",
    "shape", "expand_dims", "squeeze", "convert_to_tensor", "TensorShape", "dtypes.cast", "decode_raw",
    "io.decode_raw", "SparseTensor", "sparse.SparseTensor"))
METADATA_METHODS = frozenset({"set_shape", "get_shape", "as_list", "merge_with", "with_rank", "with_rank_at_least"})
# Ops that split, look up, slice, join and compare what an element already holds, parse a CSV line or draw random
# numbers: microseconds per element, next to decoding, resizing or augmenting an image. With METADATA_OPS, a map's
# "light" work.
LIGHT_OPS = METADATA_OPS | frozenset(f"tensorflow.{op}" for op in (
    "string_split", "strings.split", "strings.to_number", "strings.length", "strings.substr", "size", "reverse",
    "concat", "stack", "unstack", "slice", "strided_slice", "gather", "tile", "pad", "split", "one_hot", "range",
    "where", "transpose", "equal", "not_equal", "greater", "greater_equal", "less", "less_equal", "logical_and",
    "logical_or", "logical_not", "add", "subtract", "multiply", "divide", "minimum", "maximum", "clip_by_value",
    "math.add", "math.subtract", "math.multiply", "math.divide", "math.minimum", "math.maximum",
    "mod", "math.floormod", "floormod", "ceil", "math.ceil", "floor", "math.floor", "boolean_mask",
    "random_shuffle", "random.shuffle",  # a permutation of what the element holds: a gather's work
    "sparse.to_dense", "sparse_tensor_to_dense", "decode_csv", "io.decode_csv", "image.convert_image_dtype"))
# Random number draws: light when their size is fixed (a GAN's noise vector, a coin for an augmentation), not when
# it is the element's own (`tf.random.normal(tf.shape(image))`: noise the size of an image).
RANDOM_DRAWS = frozenset(f"tensorflow.{op}" for op in (
    "random.uniform", "random.normal", "random.truncated_normal", "random_uniform", "random_normal",
    "truncated_normal", "random.stateless_uniform", "random.stateless_normal"))
_ELEMENT_SHAPE = m.Call(func=m.Attribute(attr=m.Name("shape")) | m.Name("shape")) | m.Attribute(attr=m.Name("shape"))
# Methods of lookup tables and sparse results with the same cost (`vocab_table.lookup(tokens)`).
LIGHT_METHODS = METADATA_METHODS | frozenset({"lookup"})
# Python's own calls of a function on each item of an iterable.
PYTHON_APPLIERS = frozenset({"builtins.map", "builtins.filter"})
# Worker pools' methods that run the function they are handed (`pool.submit(load_image, path)`): its work is still
# the caller's, done side by side.
POOL_SUBMISSIONS = frozenset({"submit", "apply_async", "map_async", "imap", "imap_unordered", "starmap",
                              "starmap_async"})
# Keras' methods that train a model, Keras 1's included.
KERAS_TRAINING_METHODS = frozenset({"fit", "fit_generator", "train_on_batch"})
# Keras 1's argument names, which Keras 2 renamed and accepted with a warning up to 2.3 (tf.keras never did).
KERAS_1_ARGUMENTS = frozenset({"output_dim", "nb_epoch", "nb_filter", "nb_row", "nb_col", "border_mode", "subsample",
                               "init", "W_regularizer", "b_regularizer", "dim_ordering", "samples_per_epoch",
                               "nb_val_samples", "nb_worker"})
# What trains on a TPU, by the end of its name (tf.distribute, tf.contrib.tpu, tf.estimator.tpu, compat.v1).
TPU_TRAINING_SUFFIXES = (".TPUStrategy", ".TPUEstimator", ".keras_to_tpu_model")
# Python run from the graph, by the callee's canonical name (the op types a capture shows them as: advisor.linking).
PYTHON_FUNCTION_OPS = frozenset({"tensorflow.py_function", "tensorflow.numpy_function", "tensorflow.py_func"})
# Calls that wait rather than compute: sleeping, file, network and image/array I/O. They release the GIL, so
# several run at once when tf.data calls the Python function in parallel (measured: 1.8x on 2 cores).
WAITING_PREFIXES = ("time.sleep", "builtins.open", "requests.", "urllib.", "socket.", "http.", "PIL.Image.open",
                    "cv2.imread", "cv2.VideoCapture", "imageio.", "skimage.io.", "numpy.load", "numpy.fromfile",
                    "h5py.", "tensorflow.io.gfile.", "tensorflow.io.read_file", "scipy.io.", "soundfile.",
                    "librosa.load", "pandas.read_", "pickle.load", "json.load", "os.read", "boto3.",
                    # medical and scientific image files: NIfTI volumes, DICOM slices, TIFF stacks
                    "nibabel.load", "SimpleITK.ReadImage", "pydicom.dcmread", "pydicom.read_file", "dicom.read_file",
                    "tifffile.imread", "matplotlib.pyplot.imread", "matplotlib.image.imread",
                    # Keras' image file reader (PIL underneath): `load_img(path, target_size=(224, 224))`
                    "keras.preprocessing.image.load_img", "keras.utils.load_img", "keras.utils.image_utils.load_img",
                    "tensorflow.keras.preprocessing.image.load_img", "tensorflow.keras.utils.load_img")
# Python libraries that compute on arrays and images on the host.
PYTHON_COMPUTE_PREFIXES = ("numpy.", "PIL.", "cv2.", "scipy.", "skimage.", "librosa.", "albumentations.", "captcha.")
# Of those, draws that only pick which samples come next (a shuffled order, a random index): no work per element.
# (also through a generator object: `self.rng = np.random.RandomState(seed)`, then `self.rng.shuffle(order)`)
_LEGACY_ORDER_DRAWS = ("shuffle", "permutation", "randint", "choice", "seed")
ORDER_DRAWS = frozenset({*(f"numpy.random.{draw}" for draw in _LEGACY_ORDER_DRAWS),
                         *(f"numpy.random.RandomState.{draw}" for draw in _LEGACY_ORDER_DRAWS),
                         *(f"numpy.random.default_rng.{draw}" for draw in ("shuffle", "permutation", "integers",
                                                                             "choice"))})
# Arrays of one value: a memset of the batch's size, work only where a Python loop then fills them in.
CONSTANT_ARRAYS = frozenset(f"numpy.{kind}{like}" for kind in ("zeros", "ones", "empty", "full")
                            for like in ("", "_like"))
# Arrays made from what is already in memory (`np.array(X[i * n:(i + 1) * n])`, a slice of the data): see
# `_copies_memory`.
ARRAY_COPIES = frozenset({"numpy.array", "numpy.asarray", "numpy.copy", "numpy.ascontiguousarray"})
# NumPy functions giving an array another shape: views, no work over its elements.
ARRAY_VIEWS = frozenset(f"numpy.{name}" for name in ("reshape", "expand_dims", "squeeze", "transpose", "ravel",
                                                     "swapaxes", "moveaxis"))
# The summary kind of histograms made in a loop, one per variable or gradient.
PER_TENSOR_HISTOGRAMS = "histogram per tensor"
# Summary ops, TensorFlow 1.x's names too (`tf.summary.image`, `tf.image_summary`).
SUMMARY_OP_PREFIXES = ("tensorflow.summary.", "tensorflow.compat.v1.summary.", "tensorflow.image_summary",
                       "tensorflow.histogram_summary", "tensorflow.audio_summary", "tensorflow.scalar_summary")
SUMMARY_KINDS = frozenset({"scalar", "image", "histogram", "audio", "text", "tensor"})
# TensorFlow 1.x's summary of the summaries it is given (`merge_all` takes the graph's, which the source may not show).
SUMMARY_MERGES = frozenset({"tensorflow.summary.merge", "tensorflow.compat.v1.summary.merge",
                            "tensorflow.merge_summary"})
# `merge_all(key)`: the summaries made into the graph collection ``key`` (`tf.summary.scalar(name, t, ["dis"])`).
SUMMARY_MERGE_ALL = frozenset({"tensorflow.summary.merge_all", "tensorflow.compat.v1.summary.merge_all",
                               "tensorflow.merge_all_summaries"})
# Of those, the ones that work on images and signals (NumPy alone may only slice or stack a batch held in memory).
# (`captcha` renders its images with PIL)
HOST_IMAGE_PREFIXES = ("PIL.", "cv2.", "scipy.", "skimage.", "librosa.", "albumentations.", "captcha.")
WAITING_METHODS = frozenset({"read", "readline", "readlines", "recv", "download_file", "get_object"})
# What a loop that only looks at a dataset calls: printing, plotting, NumPy; and the elements' own conversions.
# Variables a program makes one by one (a latent vector to search for), not a network's layers.
HAND_MADE_VARIABLES = frozenset({"tensorflow.get_variable", "tensorflow.Variable", "tensorflow.compat.v1.get_variable",
                                 "tensorflow.compat.v1.Variable"})
# Keras methods that run a whole dataset through a model, each call setting up an iterator, callbacks and a
# progress bar first (measured in TensorFlow 2.21: 60-90 ms a call, against under 2 ms for the `*_on_batch` methods
# on one sample of a small model; benchmarks/keras_call_overhead.py).
KERAS_DATASET_METHODS = {  # with the keywords each takes
    "fit": frozenset({"x", "y", "batch_size", "epochs", "verbose", "callbacks", "validation_split", "validation_data",
                      "shuffle", "class_weight", "sample_weight", "initial_epoch", "steps_per_epoch",
                      "validation_steps", "validation_batch_size", "validation_freq", "max_queue_size", "workers",
                      "use_multiprocessing", "nb_epoch"}),  # (Keras 1's name for epochs)
    "predict": frozenset({"x", "batch_size", "verbose", "steps", "callbacks", "max_queue_size", "workers",
                          "use_multiprocessing"}),
    "evaluate": frozenset({"x", "y", "batch_size", "verbose", "sample_weight", "steps", "callbacks", "max_queue_size",
                           "workers", "use_multiprocessing", "return_dict"}),
}
# What returns a Keras model without building its layers in the repo: a saved one loaded, another one's clone.
KERAS_MODEL_LOADERS = frozenset({"keras.models.load_model", "keras.saving.load_model", "keras.models.clone_model"})
LAMBDA_CALLBACKS = frozenset({"keras.callbacks.LambdaCallback"})
_BATCH_OF_ONE = m.Subscript(slice=[m.SubscriptElement(m.Index(
    m.Name("None") | m.Attribute(attr=m.Name("newaxis")))), m.ZeroOrMore()])
_ONE_SAMPLE = (_BATCH_OF_ONE
               | m.Call(func=m.Attribute(attr=m.Name("expand_dims")), args=[m.Arg(), m.Arg(m.Integer("0"))])
               | m.Call(func=m.Attribute(attr=m.Name("reshape")), args=[m.Arg(m.Integer("1")), m.ZeroOrMore()])
               | m.Call(func=m.Attribute(attr=m.Name("reshape")),
                        args=[m.Arg(m.Tuple(elements=[m.Element(m.Integer("1")), m.ZeroOrMore()])
                                    | m.List(elements=[m.Element(m.Integer("1")), m.ZeroOrMore()]))])
               | m.Call(func=m.Attribute(attr=m.Name("reshape")),
                        args=[m.Arg(), m.Arg(m.Tuple(elements=[m.Element(m.Integer("1")), m.ZeroOrMore()])
                                             | m.List(elements=[m.Element(m.Integer("1")), m.ZeroOrMore()]))])
               | m.Call(func=m.Attribute(attr=m.Name("array") | m.Name("asarray")),
                        args=[m.Arg(m.List(elements=[m.Element()])), m.ZeroOrMore()])
               | m.List(elements=[m.Element()]))
# `np.argmax(result)` with no axis: one index over the whole result.
_ARGMAX_OF_ARGUMENT = m.Call(func=m.Attribute(attr=m.Name("argmax")) | m.Name("argmax"), args=[m.Arg(keyword=None)])
# What runs Python in the background: threads, processes and their pools (Keras' enqueuers are known by name).
BACKGROUND_WORKERS = ("threading.Thread", "multiprocessing.Process", "multiprocessing.Pool", "multiprocessing.pool.",
                      "concurrent.futures.")
# A read of the next element of an iterator: a session running its ``get_next()`` tensors, or ``next(it)``.
_ITERATOR_READ = m.Call(func=m.Attribute(attr=m.Name("run")) | m.Name("next"))
# What keeps what a loop reads in host memory: a list's ``append``, NumPy's ``concatenate``.
_COLLECTS = m.Call(func=m.Attribute(attr=m.Name("append") | m.Name("extend") | m.Name("concatenate")
                                    | m.Name("vstack") | m.Name("hstack") | m.Name("stack")))
INSPECTION_PREFIXES = ("builtins.", "numpy.", "matplotlib.", "IPython.", "PIL.")
INSPECTION_METHODS = frozenset({"numpy", "imshow", "show", "title", "axis", "subplot", "set_title", "format",
                                "decode", "tolist", "item", "append",
                                # a matplotlib figure's and axes' own (`ax = fig.add_subplot(...)`)
                                "add_subplot", "set_xticks", "set_yticks", "set_xlabel", "set_ylabel", "set_axis_off",
                                "plot", "scatter", "hist", "bar", "text", "legend", "savefig", "tight_layout"})
# How deep to follow repo functions called from a mapped function; from a Python batch maker (`__getitem__` ->
# compute_input_output -> load_image_group -> load_image -> read_image).
CALL_DEPTH = 3
# How far to follow a lookup in a table written in the code: `params["block"]` where `params = model_params[depth]`
# is a subscript of a name bound to a subscript of a name.
TABLE_DEPTH = 4
# Command-line flags: TensorFlow 1.x's `tf.app.flags` (also `tf.flags`) and absl's, read as `FLAGS.name`.
FLAG_MODULES = ("tensorflow.app.flags.", "tensorflow.flags.", "absl.flags.")
FLAG_DEFINITIONS = frozenset({"DEFINE_integer", "DEFINE_float", "DEFINE_boolean", "DEFINE_bool", "DEFINE_string",
                              "DEFINE_enum"})
# argparse: a parser's methods that return the parsed arguments, read as `args.name`.
ARGUMENT_PARSERS = frozenset({"parse_args", "parse_known_args"})
BATCH_MAKER_DEPTH = 5
# What a value the source does not decide reads as (None is a value the source writes).
_UNKNOWN = object()
_ANY_ITEM = object()  # an item of a list whose index the source does not say (:meth:`SourceQueries._integer`)
_COMPARISONS: dict[type, Callable[[object, object], bool]] = {
    cst.Equal: operator.eq, cst.NotEqual: operator.ne, cst.LessThan: operator.lt, cst.LessThanEqual: operator.le,
    cst.GreaterThan: operator.gt, cst.GreaterThanEqual: operator.ge, cst.Is: operator.is_, cst.IsNot: operator.is_not,
    cst.In: lambda a, b: operator.contains(b, a), cst.NotIn: lambda a, b: not operator.contains(b, a)}
# Calls that train a model, by method name (receivers are rarely typed): Keras, and Estimators given an input_fn.
TRAINING_METHODS = frozenset({"fit", "fit_generator", "train_on_batch"})
ESTIMATOR_TRAINING = frozenset({"tensorflow.estimator.train_and_evaluate"})
NOT_KERAS_PREFIXES = ("sklearn.", "numpy.", "pandas.", "scipy.", "xgboost.", "lightgbm.")
# Names that say a size is dictated by the data (the class count), not chosen for capacity.
DATA_SIZE_NAME = re.compile(r"class|label|categor|vocab|target|output", re.IGNORECASE)
# Of those, the names of a class count: a classifier's output width.
CLASS_COUNT_NAME = re.compile(r"class|label|categor", re.IGNORECASE)
# A docstring: the first statement of a body, which must stay first.
DOCSTRING = m.SimpleStatementLine(body=[m.Expr(value=m.SimpleString() | m.ConcatenatedString())])
# A layer with one of these activations produces class scores.
OUTPUT_ACTIVATIONS = frozenset({"softmax", "sigmoid"})
STRUCTURE_TESTS = (cst.In, cst.NotIn, cst.Is, cst.IsNot)  # comparisons no tensor op makes
# A dict's or list's methods that walk or regroup its fields, with no tensor op: `record.items()`, `x.get("label")`.
_CONTAINER_METHOD_CALL = m.Call(func=m.Attribute(attr=m.Name(value=m.MatchIfTrue(frozenset(
    {"items", "keys", "values", "get", "copy", "pop", "update", "setdefault", "append"}).__contains__))))


# -- training loops -----------------------------------------------------------------------------------------------


class Registration(Enum):
    """Whether the training calls are given a callback."""

    EVERY_RUN = "every run"  # in the callbacks list of a training call
    SOME_RUNS = "some runs"  # appended to that list under an `if` (a flag)
    NOT_SEEN = "not seen"  # advisor sees no training call given it


def _last_statement(branch: cst.If) -> cst.CSTNode | None:
    """The last statement ``branch``'s body runs: of its block, or of the small statements on the ``if``'s line."""
    last = branch.body.body[-1] if branch.body.body else None
    return last.body[-1] if isinstance(last, cst.SimpleStatementLine) else last


@dataclass
class TrainingLoop:
    """Code that runs once per training step, and the names that hold its tensors.

    ``node`` is the Python loop that runs a training step per iteration, or a function whose body runs once per
    iteration of such a loop (``Trainer.train`` called by ``while ...: trainer.train()``; an eager training step's
    own body). ``loop`` is the loop that iterates the steps, in ``loop_module``.
    """

    module: ModuleInfo
    node: cst.For | cst.While | cst.FunctionDef
    loop: cst.For | cst.While | None = None
    loop_module: ModuleInfo | None = None
    tensors: set[str] = field(default_factory=set)
    step_names: set[str] = field(default_factory=set)  # canonical names of the step functions it calls
    # Its calls of step functions, by node: named or not (`train = tf.function(self.train_step)`, then `train(x)`).
    step_calls: list[cst.Call] = field(default_factory=list)
    inline_step: bool = False  # the loop's own body opens the GradientTape and updates the weights
    # For such a loop that gets its gradients from a helper (`loss, grads = grad(model, x, y)`, the tape in it):
    # the helper's call.
    tape_helper: CallSite | None = None
    # Reads of a name (by node id) before any tensor is bound to it: in a function's body, what they read is no
    # tensor of the step (`x = np.stack(...)`, then `x = tf.convert_to_tensor(x)`).
    early_reads: set[int] = field(default_factory=set)
    # Reads of a name (by node id) that each iteration of a loop has bound anew to what is no tensor, in a statement
    # of the loop's own body above them: no tensor of an earlier iteration comes round to them (`obs = []`, filled
    # from the rollout, then `obs = tf.convert_to_tensor(np.asarray(obs))`).
    host_reads: set[int] = field(default_factory=set)
    # Names holding the batch a `for` loop iterates over: its target, and names bound to it or unpacked from it
    # (`images, labels = batch`). A dataset's elements are made on the host: reading them waits for no step.
    inputs: set[str] = field(default_factory=set)
    # A TensorFlow 1.x loop: the session runs in its body that run a training op (`sess.run([train_op, loss],
    # feed_dict=...)`). A session returns NumPy values: reading them costs nothing more.
    session_runs: list[cst.Call] = field(default_factory=list)
    # A Keras loop: the `train_on_batch` calls in its body, each a whole step that returns NumPy values.
    batch_trainings: list[cst.Call] = field(default_factory=list)

    def reads_input(self, expression: cst.BaseExpression) -> bool:
        """Whether ``expression`` reads the batch the loop iterates over (:attr:`inputs`), an item of it or what a
        method of it returns (``data["imgs"][0].cpu()``): made on the host, it waits for no step."""
        return _root_name(expression, through_methods=True) in self.inputs

    def reads_tensor(self, expression: cst.CSTNode) -> bool:
        """Whether ``expression`` (in this code) reads one of its tensors: a name bound to one, not an attribute's
        or a keyword's name; in a function's body, not before the tensor is bound, unless a loop in the function
        can bring the tensor round to the read."""
        skipped = {id(n.attr) for n in m.findall(expression, m.Attribute())} | {
            id(a.keyword) for a in m.findall(expression, m.Arg(keyword=m.Name()))} | {
            id(n.value) for n in m.findall(expression, _STATIC_READ)} | {
            id(c.args[0].value) for c in m.findall(expression, _LENGTH)}
        return any(name.value in self.tensors and id(name) not in skipped and id(name) not in self.host_reads and (
            name.value not in self.host_counters) and (
            id(name) not in self.early_reads or not isinstance(self.node, cst.FunctionDef)
            or self.module.enclosing_loop(name) is not None) for name in m.findall(expression, m.Name()))

    def reads_device_value(self, expression: cst.CSTNode) -> bool:
        """Whether Python needs a value the device computes to evaluate ``expression``: one of the step's tensors, a
        TensorFlow op's result (``tf.equal(...)``), or an optimizer's step counter (``optimizer.iterations``, an
        int64 variable each step's update increments on the device)."""
        return self.reads_tensor(expression) or bool(m.findall(expression, _OPTIMIZER_COUNTER)) or any(
            _returns_one_tensor(self.module.qualified_names(call.func)) for call in m.findall(expression, m.Call()))

    @property
    def counter(self) -> str | None:
        """The step counter of ``for step in range(n)`` / ``for step, batch in enumerate(ds)``, if any."""
        loop = self.node
        if not isinstance(loop, cst.For) or not isinstance(loop.iter, cst.Call):
            return None
        if m.matches(loop.iter.func, m.Name("range")) and isinstance(loop.target, cst.Name):
            return loop.target.value
        if m.matches(loop.iter.func, m.Name("enumerate")) and m.matches(loop.target, m.Tuple(
                elements=[m.Element(m.Name()), m.ZeroOrMore()])):
            return loop.target.elements[0].value.value
        return None

    def throttles(self, statement: cst.CSTNode) -> bool:
        """Whether ``statement`` runs only on some steps: inside an ``if`` on a step interval (``if step % 100 ==
        0:``, not its ``else``), on the loop's counter, or on a value its own body sets (``if self.mean is None:
        self.mean = ...``, a first-step initialisation), or on a mark its body moves on (``if step - last_log >=
        500: ...; last_log = step``), whose test reads no tensor of the step; or in an ``if`` whose body ends the
        loop (``if it >= num_iterations - 1: ...; break``, an epoch's last step) or skips the rest of its iteration
        (``if bad_labels: print(...); continue``: on steps that do not train); or in an ``except`` handler, which
        runs when the step raises (``except tf.errors.OutOfRangeError:`` an epoch's end, then ``break``). Not where
        that branch runs the step itself (``if batch_counter == BATCH_SIZE:`` a step on the images gathered so far):
        it runs every step."""
        if any(not self._runs_step(handler) for handler in _handlers_around(self.module, statement, self.node)):
            return True
        return any(not self._runs_step(part) and (
            part is not branch.test and not self.reads_tensor(branch.test) and not (
            part is branch.orelse and m.matches(branch.test, _ON_INTERVAL_AT_MOST)) and (
            m.findall(branch.test, _INTERVAL_TEST) or any(
                n.value in self._counters or n.value in self._interval_flags for n in m.findall(branch.test, m.Name()))
            and not self._phase_test(branch.test)
            or _initialises_once(branch) or _rearms_its_test(branch)) or part is branch.body and (
                self.ends(branch) or self.skips_rest(branch)))
            for branch, part in _branches_around(self.module, statement, self.node))

    def _runs_step(self, block: cst.CSTNode) -> bool:
        """Whether ``block`` calls the training step."""
        return any(self.calls_step(call, self.module.qualified_names(call.func)) for call in m.findall(block, m.Call())
                   if isinstance(call.func, (cst.Name, cst.Attribute)))

    def calls_step(self, call: cst.Call, names: frozenset[str]) -> bool:
        """Whether ``call`` (of ``names``) is of one of its step functions."""
        return bool(names & self.step_names) or any(call is step for step in self.step_calls)

    def _phase_test(self, test: cst.BaseExpression) -> bool:
        """Whether ``test`` orders the loop's counter against a bound the source does not write as a few steps
        (``if step >= warmup:``, ``if i < pretrain_steps:``): it splits the run into two phases, each of which runs
        on every one of its steps. (``if step < 5:`` checks the first few steps.)"""
        if not (self._counters and isinstance(test, cst.Comparison) and len(test.comparisons) == 1 and
                isinstance(test.comparisons[0].operator, ORDERINGS)):
            return False
        sides = (test.left, test.comparisons[0].comparator)
        counter = [side for side in sides if isinstance(side, cst.Name) and side.value in self._counters]
        bound = literal(next(side for side in sides if side is not counter[0])) if counter else None
        return bool(counter) and not (isinstance(bound, int) and bound < FIRST_STEPS)

    @cached_property
    def code_around(self) -> cst.CSTNode:
        """The code the loop is part of: the body of the function around it, else its module."""
        scope = self.node
        while scope is not None and not isinstance(scope, cst.FunctionDef):
            scope = self.module.parent(scope)
        return scope.body if scope is not None else self.module.tree

    @cached_property
    def host_counters(self) -> frozenset[str]:
        """Names the code around the loop binds only to an integer tensor made from a literal and steps by integer
        literals (``step = tf.constant(0)``, then ``step += 1``): a count the host keeps as a tensor, which no
        training step computes; an int32 scalar stays in host memory, and reading it waits for no device work."""
        body = self.code_around
        looped = {name for loop in m.findall(body, m.For()) for name in _bound_names(loop.target)}
        stepped: dict[str, bool] = {}
        for step in m.findall(body, m.AugAssign(target=m.Name())):
            name = step.target.value
            stepped[name] = stepped.get(name, True) and isinstance(step.value, cst.Integer)

        def counts(name: str, value: cst.BaseExpression) -> bool:
            return m.matches(value, m.Call(args=[m.Arg(value=m.Integer(), keyword=None)])) and \
                "tensorflow.constant" in self.module.qualified_names(value.func) or m.matches(
                    value, m.BinaryOperation(left=m.Name(name), operator=m.Add() | m.Subtract(), right=m.Integer()))

        return frozenset(name for name, values in _loop_bindings(body).items() if name not in looped
                         and stepped.get(name, True) and all(counts(name, value) for value in values)
                         and any(not isinstance(value, cst.BinaryOperation) for value in values))

    @cached_property
    def _counters(self) -> frozenset[str]:
        """The loop's step counter and the names its body computes from it (``ni = i + nb * epoch``, a step count
        since the run started): numbers that move on every step."""
        if self.counter is None:
            return frozenset()
        computed = [(names, assign.value) for assign in m.findall(self.node.body, m.Assign(value=m.BinaryOperation()))
                    if len(names := _assigned_names(assign)) == 1]
        return _names_derived(computed, lambda value, counters: any(
            n.value in counters for n in m.findall(value, m.Name())) and not m.findall(value, m.Call() | m.Subscript()),
            start={self.counter})

    def ends(self, branch: cst.If) -> bool:
        """Whether ``branch``'s body ends with leaving this loop: a ``break`` out of it, or a ``return``."""
        last = _last_statement(branch)
        return isinstance(last, cst.Return) or isinstance(last, cst.Break) and (
            self.module.enclosing_loop(branch) is self.node)

    def dispatches(self, call: cst.Call) -> bool:
        """Whether ``call``, in this code, may give the device work: anything but Python's and NumPy's own
        functions, the clock and logging, an array's or a list's own methods, reading a value (``.numpy()``, a
        metric's ``.result()``), a metric's accumulation (:data:`METRIC_ACCUMULATION`), formatting a string and a
        progress bar's display."""
        called = self.module.qualified_names(call.func)
        return not (called and all(n.startswith(HOST_MODULES + ("time.", "logging.")) for n in called) or m.matches(
            call.func, m.Attribute(attr=m.Name(value=m.MatchIfTrue(_NO_DEVICE_WORK_METHODS.__contains__)))))

    def runs_whenever(self, statement: cst.CSTNode, later: cst.CSTNode) -> bool:
        """Whether ``statement`` runs on every pass that runs ``later``, a statement after it in this code: the
        block that holds it holds ``later`` too, or a statement around it."""
        block, node = self.module.parent(statement), later
        while node is not None and node is not self.node:
            if node is block:
                return True
            node = self.module.parent(node)
        return False

    def decides_update(self, branch: cst.If) -> bool:
        """Whether ``branch`` decides whether or which update the step makes: a part of it runs the training step
        or applies gradients (``if accuracy < 0.8: optimizer.apply_gradients(...)``, a GAN training whichever
        network lags), or it skips the rest of the iteration (:meth:`skips_rest`) before code after it does (``if
        is_nan(loss): continue``, then ``apply_gradients``)."""
        def updates(block: cst.CSTNode) -> bool:
            return self._runs_step(block) or _updates_weights(block)

        if updates(branch.body) or branch.orelse is not None and updates(branch.orelse):
            return True
        if not self.skips_rest(branch):
            return False
        node = branch
        while node is not None and node is not self.node:
            block = self.module.parent(node)
            if isinstance(block, cst.IndentedBlock) and any(
                    updates(statement) for statement in block.body[[s is node for s in block.body].index(True) + 1:]):
                return True
            node = block
        return False

    def skips_rest(self, branch: cst.If) -> bool:
        """Whether ``branch``'s body ends with ``continue`` to this loop's next iteration."""
        return isinstance(_last_statement(branch), cst.Continue) and self.module.enclosing_loop(branch) is self.node

    @cached_property
    def _interval_flags(self) -> frozenset[str]:
        """Names this code binds to a test on a step interval, directly or through other such names
        (``is_print_iter = step % 100 == 0``, ``should_print = is_print_iter or is_last``, ``log = True if step %
        100 == 0 else False``)."""
        assignments = [(_assigned_names(assign), assign.value) for assign in m.findall(self.node, m.Assign(
            value=m.Comparison() | m.BooleanOperation() | m.UnaryOperation() | m.Name() | _TRUTH_OF_A_TEST))]
        return _names_derived(assignments, lambda value, flags: bool(m.findall(value, _INTERVAL_TEST)) or any(
            n.value in flags for n in m.findall(value, m.Name())))

    @property
    def description(self) -> str:
        """``the training loop at train.py:16:9`` or ``` `train`, which the loop at run.py:20:1 runs every step```."""
        if isinstance(self.node, cst.FunctionDef):
            where = f" at {self.loop_module.location(self.loop).display}" if self.loop is not None else ""
            return f"`{self.node.name.value}`, which the training loop{where} runs every step,"
        return f"the training loop at {self.module.location(self.node).display}"


@dataclass(frozen=True)
class PerStepKerasCall:
    """A Keras model's ``fit``/``predict``/``evaluate`` made once per iteration of a Python loop, on the data of
    that iteration: ``site`` the call, ``loop`` the loop (in ``loop_module``) whose iterations make it, ``data`` why
    its input is one iteration's (an element of what the loop walks, a sample made into a batch of one)."""

    site: CallSite
    loop: cst.For | cst.While
    loop_module: ModuleInfo
    data: str


@dataclass(frozen=True)
class FedBatches:
    """Batches a TensorFlow 1.x loop makes in Python and feeds its training run: the ``feed_dict`` argument, the
    expressions that make the batches each iteration, and the calls among them that do host work (file reads,
    image decoding), in the loop or in the repo functions it calls."""

    feed: cst.BaseExpression
    made: list[cst.BaseExpression]
    work: list[CallSite]
    # The batch comes out of the graph's own input pipeline (`x, y = sess.run(next_batch)`) and is fed back in.
    fetched: bool = False
    # Loops of the repo functions that make the batch, each making its samples one at a time in Python
    # (:meth:`SourceQueries.sample_loop`): with the function they are in.
    sample_loops: list[tuple[FunctionInfo, cst.For | cst.While]] = field(default_factory=list)


class InLoopBody(cst.CSTVisitor):
    """Visits a loop body without entering the definitions in it (their bodies do not run per iteration)."""

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return False

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return False

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        return False


class _CallsMatching(InLoopBody):
    """Collects the calls matching a matcher in a loop body."""

    def __init__(self, matcher: m.BaseMatcherNode, found: list[cst.Call]) -> None:
        super().__init__()
        self.matcher = matcher
        self.found = found

    def visit_Call(self, node: cst.Call) -> None:
        if m.matches(node, self.matcher):
            self.found.append(node)


class _AttributeRebinding(cst.CSTVisitor):
    """Counts, by attribute name, the bindings of attributes other than ``self.<name> = value`` alone."""

    def __init__(self) -> None:
        super().__init__()
        self.bound: Counter[str] = Counter()

    def _count(self, targets: Sequence[cst.BaseExpression]) -> None:
        self.bound.update(attribute.attr.value for target in targets for attribute in m.findall(target, m.Attribute()))

    def visit_Assign(self, node: cst.Assign) -> None:
        targets = [target.target for target in node.targets]
        if len(targets) != 1 or not m.matches(targets[0], m.Attribute(value=m.Name("self"))):
            self._count(targets)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._count([node.target])

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self._count([node.target])

    def visit_For(self, node: cst.For) -> None:
        self._count([node.target])


class _TensorNames(InLoopBody):
    """Names bound to tensors in the loop: results of the step, of TensorFlow/Keras calls, and of the forward pass
    inside a GradientTape."""

    def __init__(self, loop: TrainingLoop, names_of: Callable[[cst.Call], frozenset[str]]) -> None:
        super().__init__()
        self.loop = loop
        self.names_of = names_of  # a call's callee names as the index resolved them (``self.step`` included)
        self.taped = 0
        # The statements of a loop's own body, which run on every iteration, and the names one of them has bound
        # to what is no tensor so far in the iteration.
        self.every_iteration = set(map(id, loop.node.body.body)) if isinstance(loop.node, (cst.For, cst.While)) \
            and isinstance(loop.node.body, cst.IndentedBlock) else set()
        self.bound_on_host: set[str] = set()
        self.statement: cst.CSTNode | None = None
        self.shapes: set[str] = set()  # names bound to shapes, or to arithmetic on them
        self.tapes: set[str] = set()  # names bound to the loop's gradient tapes
        self.gradients: set[str] = set()  # and to the lists of gradients they return
        # Names the iteration last binds to a host copy of a tensor it bound them to, and each name's reads before
        # any binding of it that holds a tensor.
        self.copied_to_host: set[str] = set()
        self.early_reads: dict[str, list[int]] = {}
        if isinstance(loop.node, cst.For):
            loop.inputs.update(_bound_names(loop.node.target))

    @cached_property
    def _around(self) -> dict[str, list[cst.BaseExpression]]:
        """What the code around the loop binds (``n_frames = tf.shape(mel)[1]`` above it), read once a name asks."""
        return _loop_bindings(self.loop.code_around)

    def _opens_tape(self, node: cst.With) -> bool:
        return any(isinstance(item.item, cst.Call) and GRADIENT_TAPE in self.loop.module.qualified_names(item.item.func)
                   for item in node.items)

    def visit_With(self, node: cst.With) -> None:
        self.taped += self._opens_tape(node)
        if self._opens_tape(node):  # `with tf.GradientTape() as tape:`: `tape.gradient(...)` returns tensors
            self.tapes |= {item.asname.name.value for item in node.items
                           if item.asname is not None and isinstance(item.asname.name, cst.Name)}

    def leave_With(self, original_node: cst.With) -> None:
        self.taped -= self._opens_tape(original_node)

    def visit_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> None:
        self.statement = node

    def visit_For(self, node: cst.For) -> None:
        """``for g in gradients:``: the elements of the gradients a tape returns are tensors (not ``enumerate``'s
        count); so are the values of a dict of the step's tensors (``for name, value in losses.items():``, not the
        names)."""
        iterated, target = node.iter, node.target
        if m.matches(iterated, m.Call(func=m.Name("enumerate"), args=[m.Arg(), m.ZeroOrMore()])) and m.matches(
                target, m.Tuple(elements=[m.DoNotCare(), m.DoNotCare()])):
            iterated, target = iterated.args[0].value, target.elements[1].value
        if isinstance(iterated, cst.Name) and iterated.value in self.gradients:
            self.loop.tensors.update(_bound_names(target))
        elif m.matches(iterated, m.Call(func=m.Attribute(value=m.Name(), attr=m.Name("items")), args=[])) and \
                m.matches(target, m.Tuple(elements=[m.DoNotCare(), m.Element(m.Name())])) and \
                self.loop.reads_tensor(iterated.func.value):
            self._hold_tensors({target.elements[1].value.value})
        elif m.matches(iterated, m.Call(func=m.Attribute(value=m.Name(), attr=m.Name("values")), args=[])) and \
                isinstance(target, cst.Name) and self.loop.reads_tensor(iterated.func.value):
            self._hold_tensors({target.value})

    def leave_Assign(self, original_node: cst.Assign) -> None:  # once its value is read: `x = f(x)` reads the old x
        node = original_node
        bound = {name for target in node.targets for name in _bound_names(target.target)}
        if self.loop.reads_input(node.value):  # `data_train = data`, `images = data[0]`: the batch still
            self.loop.inputs |= bound
        else:
            self.loop.inputs -= bound
        if m.matches(node.value, _HOST_COPY):  # `num_pos = tf.reduce_sum(labels).numpy()`: a host value from here
            if id(self.statement) in self.every_iteration and bound & self.loop.tensors:
                # `loss = metric.result().numpy()` after `print(f"{loss:.5f}")` read the step's `loss`: the reads
                # before it read the tensor; those after it, and those atop the next iteration, the copy
                self.copied_to_host |= bound
            else:
                self.loop.tensors.difference_update(bound)
        elif isinstance(node.value, cst.Call) and self.names_of(node.value) & HOST_DATA_TENSORS and \
                not self.loop.reads_tensor(node.value):
            # `action = tf.convert_to_tensor(actions)` of a list the loop gathered: the host's own values, which
            # reading back waits for no step
            self.loop.tensors.difference_update(bound)
        elif self._shape_arithmetic(node.value):
            self.loop.tensors.difference_update(bound)
            self.shapes |= bound
            return
        elif self.taped and self._host_computation(node.value):
            self.loop.tensors.difference_update(bound)
        elif self.taped or isinstance(node.value, cst.Call) and self._returns_tensors(node.value) or isinstance(
                node.value, cst.BinaryOperation) and self.loop.reads_tensor(node.value):  # `avg = total / (i + 1)`
            if isinstance(node.value, cst.Call) and self._gradients_of_a_tape(node.value):
                self.gradients |= bound
            self._hold_tensors(bound)
            return
        if id(self.statement) in self.every_iteration:
            self.bound_on_host |= bound

    def leave_AugAssign(self, original_node: cst.AugAssign) -> None:
        """``giou_loss += loss_items[0]``: adding a tensor makes one; adding a string made of one
        (``log += "loss {}".format(loss)``) makes a string, and adding its copy (``mean_loss += loss.numpy()``) a
        host value."""
        node = original_node
        if isinstance(node.target, cst.Name) and not m.matches(node.value, _MADE_STRING | _HOST_COPY) and (
                self.loop.reads_tensor(node.value) or isinstance(node.value, cst.Call) and
                self._returns_tensors(node.value)):
            self._hold_tensors({node.target.value})

    def _hold_tensors(self, names: set[str]) -> None:
        self.loop.tensors.update(names)
        self.bound_on_host -= names
        self.shapes -= names
        self.copied_to_host -= names

    def visit_Name(self, node: cst.Name) -> None:
        if node.value not in self.loop.tensors:
            self.loop.early_reads.add(id(node))
            self.early_reads.setdefault(node.value, []).append(id(node))
        if node.value in self.bound_on_host:
            self.loop.host_reads.add(id(node))

    def finish(self) -> None:
        """Once the whole body is read: a read before a name's first binding in the iteration reads what the last
        one left, a host copy of the step's tensor where that is how the iteration ends."""
        for name in self.copied_to_host:
            self.loop.host_reads.update(self.early_reads.get(name, ()))

    def _host_computation(self, value: cst.BaseExpression) -> bool:
        """Whether ``value``, assigned in a tape, is computed on the host, not by the forward pass: NumPy's work
        (``gt = np.array(data["boxes"] / 416.)``: a host array, whatever it copies), an environment's step (a
        policy-gradient episode played inside the tape), a batch drawn from a data source (``data =
        loader.next_batch()``: the forward pass takes inputs), or, from no tensor, a copy, a number,
        arithmetic and indexing (``box = gt[i] * 416``), Python's and NumPy's functions and an array's own methods."""
        made = value
        while isinstance(made, cst.Subscript):  # `np.where(probs.numpy() < 0.2)[0]`
            made = made.value
        if isinstance(made, cst.Call) and (numpy := self.names_of(made)) and all(n.startswith("numpy.") for n in numpy):
            return True
        if m.matches(value, _ENVIRONMENT_STEP):  # `s, r, done, info = env.step(a)`: Python values from the simulator
            return True
        names = self.names_of(value) if isinstance(value, cst.Call) else frozenset()
        if isinstance(value, cst.Call) and not value.args and not self.loop.calls_step(value, names) and not any(
                n.startswith(TENSOR_APIS) for n in names):
            return True
        return not self.loop.reads_tensor(value) and all(
            (called := self.names_of(call)) and all(n.startswith(HOST_MODULES) for n in called)
            or m.matches(call.func, m.Attribute(attr=m.Name(value=m.MatchIfTrue(ARRAY_METHODS.__contains__))))
            for call in m.findall(value, m.Call()))

    def _gradients_of_a_tape(self, call: cst.Call) -> bool:
        return m.matches(call.func, m.Attribute(value=m.Name(value=m.MatchIfTrue(self.tapes.__contains__)),
                                                attr=m.Name("gradient")))

    def _shape_arithmetic(self, value: cst.BaseExpression, depth: int = 2) -> bool:
        """Whether ``value`` computes with shapes (``tf.shape(mel)[1]``, a name bound to one here or by the code
        around the loop) and Python values only: it reads no tensor but for its shape, and calls nothing but
        TensorFlow's ops and ``min``/``max``."""
        calls = m.findall(value, m.Call())
        shape_reads = [call for call in calls if self.names_of(call) & SHAPE_READS]
        read_for_shape = {id(name) for call in shape_reads for name in m.findall(call, m.Name())}
        names = [name for name in m.findall(value, m.Name()) if id(name) not in read_for_shape]

        def shape(name: cst.Name) -> bool:
            return name.value in self.shapes or depth > 0 and name.value not in self.loop.tensors and bool(
                bound := self._around.get(name.value)) and all(self._shape_arithmetic(v, depth - 1) for v in bound)

        return bool(shape_reads or any(shape(name) for name in names)) and all(
            (called := self.names_of(call)) and all(n.startswith("tensorflow.") and not n.startswith(
                "tensorflow.keras.") or n in SHAPE_ARITHMETIC_BUILTINS for n in called) for call in calls) and not any(
            name.value in self.loop.tensors and name.value not in self.shapes for name in names)

    def _returns_tensors(self, call: cst.Call) -> bool:
        if self._gradients_of_a_tape(call):
            return True
        names = self.names_of(call)
        return self.loop.calls_step(call, names) or any(n.startswith(TENSOR_APIS) and not n.startswith(
            HOST_VALUE_APIS) for n in names)


# What a tensor's static shape says, not its value: `grads.shape`, `x.get_shape()`, `x.dtype`, `len(x)`.
_STATIC_READ = m.Attribute(value=m.Name(), attr=m.Name(value=m.MatchIfTrue(
    lambda attr: attr in STATIC_ATTRIBUTES or attr == "get_shape")))
_LENGTH = m.Call(func=m.Name("len"), args=[m.Arg(value=m.Name())])
# What Python and NumPy compute on the host, and an array's own methods (`gt_imgs[i].copy()`).
HOST_MODULES = ("numpy.", "builtins.", "random.", "math.")
ARRAY_METHODS = frozenset({"copy", "astype", "reshape", "transpose", "squeeze", "flatten", "tolist", "item"})
# Methods that do their work on the host: reading a value, a list's and a dict's, a string's formatting, a logger's
# and a progress bar's.
HOST_SIDE_METHODS = ARRAY_METHODS | frozenset({
    "numpy", "result", "append", "extend", "items", "keys", "values", "get", "format", "join", "info", "debug",
    "warning", "set_description", "set_postfix", "set_postfix_str", "write", "flush", "update"})
# A Keras metric's accumulation (`loss_metric.update_state(loss)`): a few small ops on values the step made, done as
# soon as they are queued; a read after them waits for no work worth the name.
METRIC_ACCUMULATION = frozenset({"update_state", "reset_state", "reset_states"})
_NO_DEVICE_WORK_METHODS = HOST_SIDE_METHODS | METRIC_ACCUMULATION
# TensorFlow's ops that read a tensor's shape: their int32 results live in host memory, and so do those of
# arithmetic on them (`tf.minimum((i + 1) * chunk, tf.shape(mel)[1])`); reading them waits for no kernel.
SHAPE_READS = frozenset({"tensorflow.shape", "tensorflow.size", "tensorflow.rank", "tensorflow.compat.v1.shape"})
SHAPE_ARITHMETIC_BUILTINS = frozenset({"builtins.min", "builtins.max", "builtins.int", "builtins.len"})


def _bound_names(target: cst.BaseExpression) -> Iterator[str]:
    """The plain names an assignment target binds (``a``, ``a, (b, *c)``); not the object of ``self.x = ...`` or
    ``d[k] = ...``, which stays what it was."""
    if isinstance(target, cst.Name):
        yield target.value
    elif isinstance(target, (cst.Tuple, cst.List)):
        for element in target.elements:  # an Element or a StarredElement: the target is its value
            yield from _bound_names(element.value)


def _named_like(word: str) -> m.MatchIfTrue:
    """A receiver whose dotted name contains ``word`` (``self.train_env``, ``collect_driver``)."""
    return m.MatchIfTrue(lambda receiver: word in (cst.helpers.get_full_name_for_node(receiver) or "").lower())


# Stepping a Python environment: `env.step(action)` (Gym), `driver.run(time_step)` (a collection driver), on objects
# named like one.
_ENVIRONMENT_STEP = m.Call(func=m.Attribute(value=_named_like("env"), attr=m.Name("step"))
                           | m.Attribute(value=_named_like("driver"), attr=m.Name("run")), args=[m.AtLeastN(n=1)])
# Decorators that make a method an attribute computed when it is read (`self.model`).
PROPERTY_DECORATORS = frozenset({"builtins.property", "property", "functools.cached_property"})
# What gates every summary written in its block on a condition (TensorFlow 2's, and TensorFlow 1.x's contrib one).
SUMMARY_RECORD_IF = frozenset({"tensorflow.summary.record_if", "tensorflow.contrib.summary.record_summaries_if"})
# `step % 100`, `np.mod(step, 100)`: a test on a step interval.
# Words in the names of the numbers a training run fetches to log them (a loss, an accuracy, a summary, the step, the
# learning rate): a copy of a few bytes.
SCALAR_FETCH_WORDS = ("loss", "cost", "acc", "summ", "step", "lr", "learning_rate", "error", "metric", "norm")
# A run of the graph: what it is given (a feed) goes to the device.
_GRAPH_RUN = m.Call(func=m.Attribute(attr=m.Name("run") | m.Name("eval")))
ORDERINGS = (cst.LessThan, cst.LessThanEqual, cst.GreaterThan, cst.GreaterThanEqual)
# `if step < 10:` looks at the first steps only; a bound this large or one a name holds starts a phase.
FIRST_STEPS = 100
_INTERVAL_TEST = m.Modulo() | m.Call(func=m.Name("mod") | m.Attribute(attr=m.Name("mod")))
# `True if step % 100 == 0 else False`: the truth of its test, spelled out.
_TRUTH_OF_A_TEST = m.IfExp(body=m.Name("True") | m.Name("False"), orelse=m.Name("True") | m.Name("False"))
# `step % 100 == 0`: true on one step in N, so its `else` runs on the others (most steps).
_ON_INTERVAL = m.Comparison(left=m.BinaryOperation(operator=m.Modulo()),
                            comparisons=[m.ComparisonTarget(operator=m.Equal())])
# `step % 100 == 99 and j == 0`: true on one step in N at most
_ON_INTERVAL_AT_MOST = _ON_INTERVAL | m.BooleanOperation(operator=m.And(), left=_ON_INTERVAL) \
    | m.BooleanOperation(operator=m.And(), right=_ON_INTERVAL)
# `if x is None:`, `if self.mean == 0:`, `if not self.ready:`: a test of one name or attribute against its unset value.
_UNSET_VALUE = m.Name("None") | m.Integer("0") | m.Float("0.0") | m.Name("False")
_LITERAL = m.Name("None") | m.Name("True") | m.Name("False") | m.Integer() | m.Float() | m.SimpleString()
# A flag tested for one literal value: `if img_write is True:`, `if state == "warmup":`
_FLAG_TEST = m.Comparison(left=m.Name() | m.Attribute(), comparisons=[m.ComparisonTarget(
    operator=m.Is() | m.Equal(), comparator=_LITERAL)])
_UNSET_TEST = m.Comparison(left=m.Name() | m.Attribute(), comparisons=[m.ComparisonTarget(
    operator=m.Is() | m.Equal(), comparator=_UNSET_VALUE)]) \
    | m.UnaryOperation(operator=m.Not(), expression=m.Name() | m.Attribute())


def _reads_or_decodes(names: frozenset[str]) -> bool:
    """A call (by its qualified ``names``) that reads files or decodes and transforms images or signals on the
    host."""
    return any(name.startswith(WAITING_PREFIXES + HOST_IMAGE_PREFIXES) for name in names)


# `next(gen)`: an item drawn from the generator a name holds.
_NEXT_OF_NAME = m.Call(func=m.Name("next"), args=[m.Arg(value=m.Name(), keyword=None), m.ZeroOrMore()])
_SELF_ATTRIBUTE = m.Attribute(value=m.Name("self"), attr=m.Name())
# `next(self.generator)`: an item drawn from the generator an instance holds.
_NEXT_OF_ATTRIBUTE = m.Call(func=m.Name("next"), args=[m.Arg(value=_SELF_ATTRIBUTE, keyword=None), m.ZeroOrMore()])
# `var.assign_add(delta)`: a variable's update, one op.
_VARIABLE_UPDATE = m.Call(func=m.Attribute(attr=m.Name(value=m.MatchIfTrue(VARIABLE_ASSIGNMENTS.__contains__))))
# `super().__init__(game, neural_net, args)`: a subclass's constructor handing its arguments to its base's.
_SUPER_INIT = m.Call(func=m.Attribute(value=m.Call(func=m.Name("super")), attr=m.Name("__init__")))
# `model.run_eagerly = True`: Keras' switch set on the model after `compile`.
_SETS_RUN_EAGERLY = m.Assign(targets=[m.AssignTarget(target=m.Attribute(attr=m.Name("run_eagerly")))])
# `model.trainable = True`, `model.layers[1].trainable = True`: some of a model made trainable again.
_SETS_TRAINABLE = m.Assign(targets=[m.AssignTarget(target=m.Attribute(attr=m.Name("trainable")))],
                           value=m.Name("True"))


def _root_name(expression: cst.BaseExpression, through_methods: bool = False) -> str | None:
    """The name an attribute or item chain starts from: ``model`` for ``model.layers[1]``; with ``through_methods``,
    through the methods called on the way too: ``data`` for ``data["imgs"][0].cpu()``."""
    while True:
        if isinstance(expression, (cst.Attribute, cst.Subscript)):
            expression = expression.value
        elif through_methods and isinstance(expression, cst.Call) and isinstance(expression.func, cst.Attribute):
            expression = expression.func.value
        else:
            return expression.value if isinstance(expression, cst.Name) else None


def _names_derived(assignments: list[tuple[set[str], cst.BaseExpression]],
                   derives: Callable[[cst.BaseExpression, set[str]], bool],
                   start: Iterable[str] = ()) -> frozenset[str]:
    """``start`` and the names ``assignments`` bind to a value ``derives`` accepts, given the names found so far,
    to a fixed point: a name bound from such a name is one too."""
    found = set(start)
    grew = True
    while grew:
        grew = False
        for names, value in assignments:
            if names - found and derives(value, found):
                found |= names
                grew = True
    return frozenset(found)


def _initialises_once(branch: cst.If) -> bool:
    """Whether ``branch`` tests a name or attribute for its unset value and its body sets it, or tests a flag its
    body turns off: after the first time the body runs, the test fails until something sets it again (``if
    self.mean == 0: self.mean = np.mean(d)``; ``if new_epoch: order = np.random.permutation(n); new_epoch =
    False``)."""
    if m.matches(branch.test, m.Name() | m.Attribute()):
        flag = cst.helpers.get_full_name_for_node(branch.test)
        return any(cst.helpers.get_full_name_for_node(target.target) == flag and m.matches(assignment.value, _UNSET_VALUE)
                   for assignment in m.findall(branch.body, m.Assign()) for target in assignment.targets)
    if m.matches(branch.test, _FLAG_TEST):
        # `if img_write is True: ...; img_write = False`: the body sets the flag to another literal
        flag, tested = cst.helpers.get_full_name_for_node(branch.test.left), branch.test.comparisons[0].comparator
        if any(cst.helpers.get_full_name_for_node(target.target) == flag and m.matches(assignment.value, _LITERAL)
               and not assignment.value.deep_equals(tested)
               for assignment in m.findall(branch.body, m.Assign()) for target in assignment.targets):
            return True
    if not m.matches(branch.test, _UNSET_TEST):
        return False
    tested = cst.helpers.get_full_name_for_node(
        branch.test.expression if isinstance(branch.test, cst.UnaryOperation) else branch.test.left)
    return any(cst.helpers.get_full_name_for_node(target.target) == tested
               for assignment in m.findall(branch.body, m.Assign()) for target in assignment.targets)


def _unpacks_a_transition(site: CallSite) -> bool:
    """``observation, reward, done[, info] = env.step(action)``: what a gym-style environment step returns."""
    statement = site.module.parent(site.node)
    return isinstance(statement, cst.Assign) and statement.value is site.node and any(
        isinstance(target.target, (cst.Tuple, cst.List)) and len(target.target.elements) >= 3
        for target in statement.targets)


def _never_read(site: CallSite) -> bool:
    """Whether the function making ``site`` binds its result to names it never reads: a training op built and
    never run (a checkpoint converter builds the training graph only so that its variable names match)."""
    if site.function is None:
        return False
    statement = site.module.parent(site.node)
    if not isinstance(statement, cst.Assign) or statement.value is not site.node or not all(
            isinstance(target.target, cst.Name) for target in statement.targets):
        return False
    names = {target.target.value for target in statement.targets}
    stores = {id(target.target) for assign in m.findall(site.function.node.body, m.Assign())
              for target in assign.targets}
    attributes = {id(a.attr) for a in m.findall(site.function.node.body, m.Attribute())}
    return not any(n.value in names and id(n) not in stores and id(n) not in attributes
                   for n in m.findall(site.function.node.body, m.Name()))


def _rearms_its_test(branch: cst.If) -> bool:
    """Whether ``branch`` compares a name or attribute its own body assigns: the body moves the mark the test
    measures from (``if gs - last_gs >= 500: ...; last_gs = gs``, ``if time.time() - last > 60: ...; last = ...``),
    so it runs on some iterations only."""
    if not isinstance(branch.test, cst.Comparison) or any(
            isinstance(c.operator, (cst.Is, cst.IsNot, cst.In, cst.NotIn)) for c in branch.test.comparisons):
        return False
    tested = {cst.helpers.get_full_name_for_node(n) for n in m.findall(branch.test, m.Name() | m.Attribute())}
    body = branch.body.body if isinstance(branch.body, cst.IndentedBlock) else ()
    assigned = {cst.helpers.get_full_name_for_node(target.target) for statement in body
                if isinstance(statement, cst.SimpleStatementLine)
                for assignment in statement.body if isinstance(assignment, cst.Assign)
                for target in assignment.targets}
    return bool(tested & assigned - {None})


# -- Python that changes meaning under tf.function ----------------------------------------------------------------

# TensorFlow ops that return one tensor (not a list, tuple or dict): their results are certainly tensors.
SINGLE_TENSOR_OPS = frozenset(f"tensorflow.{name}" for name in (
    "constant", "convert_to_tensor", "reshape", "cast", "concat", "stack", "matmul", "add", "subtract", "multiply",
    "divide", "square", "sqrt", "exp", "abs", "ones", "zeros", "ones_like", "zeros_like", "fill", "range", "where",
    "gather", "transpose", "expand_dims", "squeeze", "clip_by_value", "clip_by_norm", "argmax", "argmin", "one_hot",
    "tile", "identity", "maximum", "minimum", "norm", "tensordot", "einsum", "sign", "pow", "tanh", "sigmoid",
    "nn.relu", "nn.softmax", "nn.sigmoid", "nn.l2_loss", "nn.conv2d", "nn.bias_add", "image.resize", "equal",
    "not_equal", "less", "less_equal", "greater", "greater_equal", "logical_and", "logical_or", "logical_not",
    "math.equal", "math.not_equal", "math.less", "math.greater", "math.is_nan", "math.is_finite"))
SINGLE_TENSOR_PREFIXES = ("tensorflow.reduce_", "tensorflow.math.reduce_", "tensorflow.random.")
# `optimizer.iterations`, `self.g_optim.iterations`: the step counter an optimizer's update increments.
_OPTIMIZER_COUNTER = m.Attribute(value=_named_like("optim"), attr=m.Name("iterations"))



def _returns_one_tensor(names: Iterable[str]) -> bool:
    """Whether a call to one of ``names`` (qualified) certainly returns a tensor."""
    return any(n in SINGLE_TENSOR_OPS or n.startswith(SINGLE_TENSOR_PREFIXES) for n in names)


# Python builtins that iterate over their (positional) arguments; AutoGraph converts none of them for tensors.
ITERATING_BUILTINS = frozenset({"zip", "enumerate", "list", "tuple", "sum", "map", "filter", "sorted", "set", "min",
                                "max", "any", "all"})
# Attributes and builtins that read static facts of a tensor, which stay Python values while tracing.
STATIC_ATTRIBUTES = frozenset({"shape", "dtype", "ndim", "name", "device"})
STATIC_BUILTINS = frozenset({"len", "isinstance", "hasattr", "type", "callable"})
KERAS_STATE_PREFIXES = ("keras.layers.", "keras.optimizers.", "keras.applications.", "keras.metrics.")
ESTIMATOR_EVALUATION_MODES = frozenset(f"tensorflow.{api}.ModeKeys.{mode}" for api in ("estimator", "contrib.learn")
                                       for mode in ("EVAL", "PREDICT", "INFER"))
MODEL_TENSORS = frozenset({"input", "inputs", "output", "outputs"})  # a model's whole graph, as tensors
# What a model built on a backbone reads of it (`Model(base.input, head(base.output))`).
BACKBONE_OUTPUTS = MODEL_TENSORS | {"layers", "get_layer"}
# Methods of a distribution strategy that run a function on each replica.
REPLICA_RUNNERS = frozenset({"run", "experimental_run_v2", "call_for_each_replica"})
# What a model's weights are read as.
WEIGHT_ATTRIBUTES = frozenset({"trainable_variables", "trainable_weights", "variables", "weights"})
VARIABLE_CREATORS = frozenset({"tensorflow.Variable", "keras.Variable", *KERAS_MODEL, *SEQUENTIAL})


@dataclass(frozen=True)
class SideEffect:
    """Python in a function that behaves differently once the function is traced into a graph."""

    node: cst.CSTNode
    what: str  # "`print(...)`"
    consequence: str  # what happens to it under tf.function
    breaks_step: bool  # True: compiling would make the function fail or compute something else
    # Computes with host values (NumPy, Python's random, `.numpy()`): breaks a compiled step from any function it
    # calls, too
    on_host: bool = False
    # In a repo model's or layer's forward pass (`model(x)` runs a `call` that reads `.numpy()`): the step cannot be
    # compiled until the model is rewritten, not by moving a line out of it
    in_forward: bool = False
    # For a call reaching host computation through repo functions: that computation, where it is and what it does
    # ("`shape.numpy()` (misc.py:40:12) fails: ...")
    origin: str | None = None


class _TensorValues(cst.CSTVisitor):
    """What one function's names hold, read in source order: ``tensors`` (results of single-tensor ops and of
    arithmetic on tensors), ``taped`` (the forward pass recorded inside a GradientTape: tensors as a rule, though a
    model may return a list), ``gradients`` (``tape.gradient`` results: a tensor or a list), ``local`` (parameters
    and names the function binds), and every read of a name with its position."""

    def __init__(self, module: ModuleInfo, function: cst.FunctionDef) -> None:
        super().__init__()
        self.module = module
        self.tensors: set[str] = set()
        self.taped: set[str] = set()
        self.gradients: set[str] = set()
        self.parameters = frozenset(_all_parameter_names(function))
        # parameters a number by default (`max_timescale=1.0e4`): Python numbers, as callers use them
        self.number_parameters = frozenset(
            param.name.value for param in (*function.params.posonly_params, *function.params.params,
                                           *function.params.kwonly_params)
            if m.matches(param.default, _NUMBER | m.UnaryOperation(operator=m.Minus(), expression=_NUMBER)))
        self.local: set[str] = set(self.parameters)
        self.reads: list[tuple[str, tuple[int, int]]] = []
        self._tapes = 0

    def is_tensor(self, expression: cst.BaseExpression) -> bool:
        """Certainly a tensor: a single-tensor op, arithmetic with a tensor (or a gradient: a list times a number
        is never meant), an element of a tensor, or a name bound to one of these."""
        if isinstance(expression, cst.Name):
            return expression.value in self.tensors
        if isinstance(expression, cst.BinaryOperation):
            return any(self.is_tensor(side) or m.matches(side, m.Name(value=m.MatchIfTrue(self.gradients.__contains__)))
                       for side in (expression.left, expression.right))
        if isinstance(expression, cst.UnaryOperation) and isinstance(expression.operator, cst.Minus):
            return self.is_tensor(expression.expression) or m.matches(expression.expression, m.Name(
                value=m.MatchIfTrue(self.gradients.__contains__)))
        if isinstance(expression, cst.Subscript):
            return self.is_tensor(expression.value)
        if isinstance(expression, cst.Call):
            return _returns_one_tensor(self.module.qualified_names(expression.func))
        return False

    def depends_on_tensor(self, node: cst.CSTNode) -> bool:
        """Whether a condition's value comes from a tensor (not from its static shape or dtype)."""
        if isinstance(node, cst.Attribute) and node.attr.value in STATIC_ATTRIBUTES:
            return False
        if isinstance(node, cst.Call) and m.matches(node.func, m.Name(value=m.MatchIfTrue(STATIC_BUILTINS.__contains__))):
            return False
        if isinstance(node, cst.Name):
            return node.value in self.tensors | self.taped | self.gradients
        if isinstance(node, cst.BaseExpression) and self.is_tensor(node):
            return True
        if isinstance(node, cst.Attribute):  # `loss.x` depends on `loss`, not on a name `x`
            return self.depends_on_tensor(node.value)
        return any(self.depends_on_tensor(child) for child in node.children)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return False  # a nested definition's names are its own

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return False

    def visit_With(self, node: cst.With) -> None:
        self._tapes += _opens_tape(self.module, node)

    def leave_With(self, original_node: cst.With) -> None:
        self._tapes -= _opens_tape(self.module, original_node)

    def visit_Assign(self, node: cst.Assign) -> None:
        self._bind([t.target for t in node.targets], node.value)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        if node.value is not None:
            self._bind([node.target], node.value)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        if isinstance(node.target, cst.Name) and self.is_tensor(node.value):
            self.tensors.add(node.target.value)

    def visit_For(self, node: cst.For) -> None:
        self.local.update(_target_names(node.target))

    def visit_Name(self, node: cst.Name) -> None:
        position = self.module.position(node).start
        self.reads.append((node.value, (position.line, position.column)))

    def _bind(self, targets: list[cst.BaseExpression], value: cst.BaseExpression) -> None:
        names = [name for target in targets for name in _target_names(target)]
        self.local.update(names)
        if len(targets) == 1 and isinstance(targets[0], cst.Name):
            if self.is_tensor(value):
                self.tensors.update(names)
            elif m.matches(value, m.Call(func=m.Attribute(attr=m.Name("gradient")))):
                self.gradients.update(names)
        if self._tapes:
            self.taped.update(names)


def _opens_tape(module: ModuleInfo, node: cst.With) -> bool:
    return any(isinstance(item.item, cst.Call) and GRADIENT_TAPE in module.qualified_names(item.item.func)
               for item in node.items)


def _target_names(target: cst.BaseExpression) -> list[str]:
    return [n.value for n in m.findall(target, m.Name())] if isinstance(target, (cst.Name, cst.Tuple, cst.List)) \
        else []


def _assigned_values(body: cst.CSTNode, name: str) -> list[cst.BaseExpression]:
    """The values ``body`` assigns to ``name`` (``name = value``)."""
    return [assign.value for assign in m.findall(body, m.Assign(targets=[m.AssignTarget(target=m.Name(name))]))]


def _pretrained(names: Iterable[str]) -> bool:
    """A known architecture, built by its library as a Keras model: ``keras.applications.ResNet50(...)``,
    ``TFAutoModelForSequenceClassification.from_pretrained(...)``, ``TFGPT2LMHeadModel(config)``,
    ``keras_hub.models.BertClassifier.from_preset``.
    A Keras application by its family's name: ``from keras.applications.vgg16 import *`` beside ``from keras.layers
    import *`` leaves ``Input`` and ``Conv2D`` resolving to either module."""
    return any((name.startswith("keras.applications.") and name.rsplit(".", 1)[-1].startswith(APPLICATION_FAMILIES))
               or HUGGING_FACE_MODEL.fullmatch(name)
               or (any(name.startswith(prefix) and name.endswith(methods) for prefix, methods in PRETRAINED_FACTORIES)
                   and not any(part in name for part in PREPROCESSING_PRESETS)) for name in names)


def _library_architecture(names: Iterable[str]) -> bool:
    """A known architecture its library builds: a Keras one (:func:`_pretrained`), or a TF-Slim network built into
    a TensorFlow 1.x graph (``resnet_v2.resnet_v2_101(images, ...)``)."""
    return _pretrained(names) or any(name.startswith(SLIM_NETS) and not name.endswith("arg_scope")
                                     and ".resnet_utils." not in name for name in names)


def _chosen_application(call: CallSite) -> bool:
    """``getattr(applications, cfg.model_name)(...)``: one of ``keras.applications``' architectures, chosen by name
    at run time."""
    chooser = call.node.func
    return m.matches(chooser, m.Call(func=m.Name("getattr"), args=[m.Arg(), m.Arg()])) and any(
        name.rstrip(".") in ("keras.applications", "tensorflow.keras.applications")
        for name in call.module.qualified_names(chooser.args[0].value))


def _elements(expr: cst.BaseExpression | None) -> list[cst.BaseExpression]:
    """What a list, tuple or dict literal holds (a dict: its values), or lists added together (``a + [b]``), or
    ``expr`` itself."""
    if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.Add):
        return _elements(expr.left) + _elements(expr.right)
    if isinstance(expr, (cst.List, cst.Tuple)):
        return [part for element in expr.elements for part in _elements(element.value)]
    if isinstance(expr, cst.Dict):
        return [part for element in expr.elements if isinstance(element, cst.DictElement)
                for part in _elements(element.value)]
    return [expr] if expr is not None else []


def _all_parameter_names(function: cst.FunctionDef) -> list[str]:
    params = function.params
    star = [p.name.value for p in (params.star_arg, params.star_kwarg) if isinstance(p, cst.Param)]
    return [*parameter_names(function), *star]


class _Assignments(cst.CSTVisitor):
    """Names a block of statements binds (nested definitions left out)."""

    def __init__(self) -> None:
        super().__init__()
        self.names: set[str] = set()

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return False

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        self.names.update(_target_names(node.target))

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self.names.update(_target_names(node.target))

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self.names.update(_target_names(node.target))


def _assigned_in(block: cst.CSTNode | None) -> set[str]:
    if block is None:
        return set()
    visitor = _Assignments()
    visit_reading(block, visitor)
    return visitor.names


NUMPY_CALL = m.Call(func=m.Attribute(attr=m.Name("numpy")), args=[])  # `t.numpy()`: reads a tensor's value
# Random numbers drawn in Python: `np.random.choice`, `random.sample`.
HOST_RANDOM = ("numpy.random.", "random.")
# A queue-based pipeline's batch of tensors (TensorFlow 1.x).
QUEUE_BATCHES = frozenset(f"tensorflow{v1}.train.{kind}{join}" for v1 in ("", ".compat.v1")
                          for kind in ("batch", "shuffle_batch", "maybe_batch", "maybe_shuffle_batch")
                          for join in ("", "_join"))
# Draws of items from a collection or a range: what a replay memory's minibatch is sampled with.
ITEM_DRAWS = ("random.sample", "random.choices", "numpy.random.choice", "numpy.random.randint")
# How many items each of those draws: the keyword, and the position where one is passed positionally.
_DRAW_SIZES = {"numpy.random.randint": ("size", 2), "numpy.random.choice": ("size", 1), "random.sample": ("k", 1),
               "random.choices": ("k", None)}
# `tf.device("/cpu:0")`, `g.device("/CPU:0")`: what runs under it runs on the CPU.
_CPU_DEVICE = m.Call(func=m.Attribute(attr=m.Name("device")) | m.Name("device"), args=[m.Arg(
    value=m.SimpleString(value=m.MatchIfTrue(lambda text: "cpu" in text.lower()))), m.ZeroOrMore()])
_GPU_DEVICE = m.Call(func=m.Attribute(attr=m.Name("device")) | m.Name("device"), args=[m.Arg(
    value=m.MatchIfTrue(lambda value: "gpu" in cst.Module([]).code_for_node(value).lower())), m.ZeroOrMore()])
# Ops that add into a variable (a gradient accumulator's update).
_ACCUMULATES = m.Call(func=m.Attribute(attr=m.Name("assign_add")))
# What copies a tensor's value to the host, a Python or NumPy value from then on.
_HOST_COPY = m.Call(func=m.Attribute(attr=m.Name("numpy") | m.Name("item") | m.Name("tolist"))) | m.Call(
    func=m.Name(value=m.MatchIfTrue(VALUE_CONVERSIONS.__contains__)))
# A copy to Python of what a plain name holds: `t.numpy()`, `float(loss)`.
_HOST_COPY_OF_NAME = m.Call(func=m.Attribute(value=m.Name(), attr=m.Name("numpy") | m.Name("item") | m.Name(
    "tolist"))) | m.Call(func=m.Name(value=m.MatchIfTrue(VALUE_CONVERSIONS.__contains__)), args=[m.Arg(m.Name())])
_VALUE_CONVERSION = m.Call(func=m.Name(value=m.MatchIfTrue(VALUE_CONVERSIONS.__contains__)), args=[m.Arg()])
_LIST_GROWTH = m.Call(func=m.Attribute(attr=m.Name("append") | m.Name("extend")))
# Formatting values into a string: `"%.4f" % loss`, and `"loss {}".format` (the function called).
PERCENT_FORMATTING = m.BinaryOperation(left=m.SimpleString() | m.ConcatenatedString(), operator=m.Modulo())
STRING_FORMAT = m.Attribute(value=m.SimpleString() | m.ConcatenatedString(), attr=m.Name("format"))
# A string made of values (those, `f"{loss}"`, `str(loss)`): a Python value, whose tensors were read where it was made.
_MADE_STRING = m.Call(func=STRING_FORMAT) | PERCENT_FORMATTING | m.FormattedString() | m.Call(func=m.Name("str"))
_PRINT = m.Call(func=m.Name("print"))


# A plain visitor, not libcst's MatcherDecoratableVisitor: that one inspects every attribute of the visitor on each
# construction (about 20 ms), and one is built per training step.
class _SideEffects(cst.CSTVisitor):
    """Python in a function that ``tf.function`` would trace once instead of running per call, or cannot trace
    (each pattern checked against TensorFlow in tests/fixes/test_graph_compatibility.py)."""

    def __init__(self, module: ModuleInfo, values: _TensorValues) -> None:
        super().__init__()
        self.module = module
        self.values = values
        self.found: list[SideEffect] = []
        self.declared: set[str] = set()  # global / nonlocal names: state that outlives one call
        self.bound: set[str] = set(values.parameters)  # names bound so far, in source order
        self.static: set[str] = set()  # names bound to literals and static shapes only, so far: fixed per trace
        self._loops: list[cst.For | cst.While] = []

    def _add(self, node: cst.CSTNode, consequence: str, breaks_step: bool, on_host: bool = False) -> None:
        self.found.append(SideEffect(node, f"`{self.module.node_code(node)}`", consequence, breaks_step, on_host))

    def visit_Global(self, node: cst.Global) -> None:
        self.declared.update(n.name.value for n in node.names)

    def visit_Nonlocal(self, node: cst.Nonlocal) -> None:
        self.declared.update(n.name.value for n in node.names)

    def numpy_call(self, node: cst.Call) -> None:
        self._add(node, "fails: a graph tensor has no NumPy value while tracing", True, on_host=True)

    def value_conversion(self, node: cst.Call) -> None:
        # (a number, a shape, a string (`float("-inf")`), a parameter that defaults to a number: a Python value)
        argument = node.args[0].value
        if self.module.qualified_names(node.func) & {f"builtins.{n}" for n in VALUE_CONVERSIONS} and not (
                m.findall(argument, m.Attribute(attr=m.Name("shape")) | _NUMBER)
                or isinstance(argument, (cst.SimpleString, cst.ConcatenatedString))
                or m.matches(argument, m.Name(value=m.MatchIfTrue(self.values.number_parameters.__contains__)))):
            self._add(node, "becomes a tensor cast, not a Python number, while tracing: code that needs the number "
                            "fails or computes something else", True, on_host=True)

    def host_computation(self, node: cst.Call, names: set[str]) -> None:
        """NumPy, Python's ``random`` and Keras' weight copies run once, while tracing: their values are frozen
        into the graph (a minibatch drawn once), or they fail on a graph tensor."""
        if any(name.startswith(HOST_RANDOM) for name in names):
            self._add(node, "draws its random values once, while tracing: every later call reuses them "
                            "(`tf.random` draws on every call)", True, on_host=True)
        elif any(name.startswith("numpy.") for name in names) and any(self._reads_values(a.value) for a in node.args):
            self._add(node, "computes with NumPy once, while tracing: the result is frozen into the graph, and a "
                            "graph tensor has no NumPy value", True, on_host=True)
        elif m.matches(node.func, m.Attribute(attr=m.Name("get_weights") | m.Name("set_weights"))):
            self._add(node, "copies the weights through NumPy once, while tracing, not on every call", True,
                      on_host=True)

    def list_append(self, node: cst.Call) -> None:
        self._add(node, "runs once, while tracing, and stores a symbolic tensor instead of one value per step", True)

    def print_call(self, node: cst.Call) -> None:
        if "builtins.print" in self.module.qualified_names(node.func):
            self._add(node, "prints only while tracing, not every step (`tf.print` prints every step)", False)

    def _reads_values(self, node: cst.CSTNode) -> bool:
        """Whether ``node`` reads a variable, not only literals, modules and static properties (``np.pi``,
        ``x.shape[0]``), or names bound to those alone."""
        if isinstance(node, cst.Attribute):
            return node.attr.value not in STATIC_ATTRIBUTES and self._reads_values(node.value)
        if isinstance(node, cst.Arg):  # (`dtype=np.float32`: the keyword is a name, not a value read)
            return self._reads_values(node.value)
        if isinstance(node, cst.Name):
            return node.value not in self.module.names.aliases and node.value not in ("True", "False", "None") \
                and node.value not in self.static
        return any(self._reads_values(child) for child in node.children)

    def visit_Call(self, node: cst.Call) -> None:
        if m.matches(node, _LIST_GROWTH):
            self.list_append(node)
        if m.matches(node, NUMPY_CALL):
            self.numpy_call(node)
        if m.matches(node, _PRINT):
            self.print_call(node)
        if m.matches(node, _VALUE_CONVERSION):
            self.value_conversion(node)
        names = self.module.qualified_names(node.func)
        self.host_computation(node, names)
        if names & VARIABLE_CREATORS or any(n.startswith(KERAS_STATE_PREFIXES) and n.rsplit(".", 1)[-1][:1].isupper()
                                            for n in names):
            self._add(node, "creates variables on every call: tf.function allows them only on the first call "
                            "(ValueError)", True)
        if names & {f"builtins.{n}" for n in ITERATING_BUILTINS}:
            iterated = [a.value for a in node.args if not a.keyword and not a.star]
            if names & {"builtins.map", "builtins.filter"}:
                iterated = iterated[1:]  # the first argument is the function
            if any(self.values.is_tensor(value) for value in iterated):
                self._add(node, "iterates over a tensor in Python, which a traced function cannot do "
                                "(OperatorNotAllowedInGraphError)", True)
        if any(a.star == "*" and self.values.is_tensor(a.value) for a in node.args):
            self._add(node, "unpacks a tensor into arguments, which a traced function cannot do "
                            "(OperatorNotAllowedInGraphError)", True)

    def visit_Assign(self, node: cst.Assign) -> None:
        if any(isinstance(t.target, (cst.Tuple, cst.List)) for t in node.targets) and self.values.is_tensor(node.value):
            self._add(node, "unpacks a tensor in Python, which a traced function cannot do "
                            "(OperatorNotAllowedInGraphError)", True)
        for target in node.targets:
            base = _root_name(target.target)
            if not isinstance(target.target, cst.Name) and base is not None and (
                    base not in self.values.local or base == "self"):
                self._add(node, "stores into state that outlives the call once, while tracing: it keeps a symbolic "
                                "tensor instead of one value per step", True)

    def leave_Assign(self, original_node: cst.Assign) -> None:
        static = not self._reads_values(original_node.value)  # `shape = (x.shape[1], x.shape[1])`: fixed per trace
        for target in original_node.targets:
            names = set(_target_names(target.target))
            self.bound.update(names)
            self.static = self.static | names if static else self.static - names

    def leave_AnnAssign(self, original_node: cst.AnnAssign) -> None:
        self.bound.update(_target_names(original_node.target))

    def visit_WithItem(self, node: cst.WithItem) -> None:
        if node.asname is not None:
            self.bound.update(_target_names(node.asname.name))

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        if isinstance(node.target, cst.Attribute) or m.matches(node.target, m.Name(
                value=m.MatchIfTrue(self.declared.__contains__))):
            self._add(node, "counts traces, not steps: it runs only while tracing", True)

    # Python control flow on a tensor: AutoGraph converts `if`/`while` on tensors, but not these forms.
    def visit_Assert(self, node: cst.Assert) -> None:
        if self.values.depends_on_tensor(node.test):
            self._add(node, "checks a tensor as a Python bool, which a traced function cannot do", True)

    def visit_For(self, node: cst.For) -> None:
        self._loops.append(node)
        self.bound.update(_target_names(node.target))

    def leave_For(self, original_node: cst.For) -> None:
        self._loops.pop()

    def visit_While(self, node: cst.While) -> None:
        self._loops.append(node)

    def leave_While(self, original_node: cst.While) -> None:
        self._loops.pop()

    def visit_If(self, node: cst.If) -> None:
        if not self.values.depends_on_tensor(node.test):
            return
        what = f"`if {self.module.node_code(node.test)}:`"
        if m.findall(node, m.Raise()):
            self.found.append(SideEffect(node.test, what, "raises in a branch taken on a tensor value, which a traced "
                                                          "function cannot do", True))
        if self._loops and self._in_python_loop() and m.findall(node, m.Break() | m.Continue()):
            self.found.append(SideEffect(node.test, what, "leaves a Python loop on a tensor value, which a traced "
                                                          "function cannot do", True))
        orelse = node.orelse.body if isinstance(node.orelse, cst.Else) else node.orelse
        one_sided = (_assigned_in(node.body) ^ _assigned_in(orelse)) - self.bound
        end = self.module.position(node).end
        read_after = {name for name, at in self.values.reads if at >= (end.line, end.column)}
        for name in sorted(one_sided & read_after):
            self.found.append(SideEffect(node.test, what, f"sets `{name}` in one branch only and reads it after: a "
                                                          "tensor condition needs it set in both", True))

    def _in_python_loop(self) -> bool:
        """The innermost loop runs in Python: ``for`` over ``range(n)``, a literal or ``zip``/``enumerate``, or a
        ``while`` whose condition is no tensor (AutoGraph turns loops over tensors and datasets into graph loops)."""
        loop = self._loops[-1]
        if isinstance(loop, cst.While):
            return not self.values.depends_on_tensor(loop.test)
        iterated = loop.iter
        if isinstance(iterated, (cst.List, cst.Tuple)):
            return True
        return isinstance(iterated, cst.Call) and m.matches(iterated.func, m.Name("range") | m.Name("enumerate") |
                                                            m.Name("zip")) and not any(
            self.values.depends_on_tensor(a.value) for a in iterated.args)


class _KeyedFinds(cst.CSTVisitor):
    """What a visitor finds in a module, each with the key of the code around it: its innermost function's, or the
    module's top level."""

    def __init__(self, module: ModuleInfo) -> None:
        super().__init__()
        self.module = module
        self.found: list[tuple[cst.CSTNode, int | tuple]] = []
        self._functions: list[cst.FunctionDef] = []

    def _key(self) -> int | tuple:
        return id(self._functions[-1]) if self._functions else ("module", id(self.module))

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._functions.append(node)

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self._functions.pop()


class _SixteenBitMentions(_KeyedFinds):
    """A module's policy strings (``"mixed_float16"``) and 16-bit dtypes (``tf.bfloat16``, ``"float16"``).

    Not those a test compares (``if dtype == tf.bfloat16:``), nor the code such a test guards (casting the batch
    to the dtype asked for): that handles a 16-bit type where a caller chooses one, and the caller's choice is the
    mention that counts (an ImageNet loader's ``dtype`` parameter, left at ``tf.float32`` by the training)."""

    def __init__(self, module: ModuleInfo) -> None:
        super().__init__(module)
        self._guarded: list[bool] = []  # per `if` being walked: whether its test compares a 16-bit dtype

    def visit_SimpleString(self, node: cst.SimpleString) -> None:
        if node.value.strip("\"'") in MIXED_POLICIES and not any(self._guarded):
            self.found.append((node, self._key()))

    def visit_Attribute(self, node: cst.Attribute) -> None:
        if not any(self._guarded) and self._sixteen_bit(node):
            self.found.append((node, self._key()))

    def visit_Comparison(self, node: cst.Comparison) -> bool:
        return False

    def visit_If(self, node: cst.If) -> None:
        self._guarded.append(False)

    def visit_If_body(self, node: cst.If) -> None:
        self._guarded[-1] = any(self._sixteen_bit(attribute) for comparison in m.findall(node.test, m.Comparison())
                                for attribute in m.findall(comparison, m.Attribute()))

    def leave_If_body(self, node: cst.If) -> None:
        self._guarded[-1] = False

    def leave_If(self, original_node: cst.If) -> None:
        self._guarded.pop()

    def _sixteen_bit(self, node: cst.Attribute) -> bool:
        return node.attr.value in ("float16", "bfloat16") and bool(self.module.names.resolve(node) & SIXTEEN_BIT_DTYPES)


class _GpuSettings(_KeyedFinds):
    """A module's GPU settings: a session's ``gpu_options`` (``config.gpu_options.allow_growth = True``) and
    ``os.environ["CUDA_VISIBLE_DEVICES"] = "0"``; and in ``hidden``, the settings that hide every GPU from all that
    runs after them (not under an ``if`` or a ``try``: set whatever the run): ``CUDA_VISIBLE_DEVICES`` set to
    ``"-1"`` or ``""``, ``tf.config.set_visible_devices([], "GPU")``; in ``hidden_sessions``, sessions configured
    with no GPU (``tf.ConfigProto(device_count={"GPU": 0})``, the CPU-only Estimator scripts of recommender repos),
    which hide them from that session only."""

    def __init__(self, module: ModuleInfo) -> None:
        super().__init__(module)
        self.hidden: list[tuple[cst.CSTNode, int | tuple]] = []
        # Sessions configured with no GPU: those hide the GPUs from themselves only.
        self.hidden_sessions: list[tuple[cst.CSTNode, int | tuple]] = []
        self._conditions = 0

    def visit_Attribute(self, node: cst.Attribute) -> None:
        if node.attr.value == "gpu_options":
            self.found.append((node, self._key()))

    def visit_If(self, node: cst.If) -> None:
        self._conditions += 1

    def leave_If(self, original_node: cst.If) -> None:
        self._conditions -= 1

    def visit_Try(self, node: cst.Try) -> None:
        self._conditions += 1

    def leave_Try(self, original_node: cst.Try) -> None:
        self._conditions -= 1

    def visit_Assign(self, node: cst.Assign) -> None:
        if not any(m.matches(t.target, m.Subscript(slice=[m.SubscriptElement(m.Index(m.SimpleString()))]))
                   and literal(t.target.slice[0].slice.value) == "CUDA_VISIBLE_DEVICES" for t in node.targets):
            return
        if not (isinstance(node.value, cst.SimpleString) and node.value.evaluated_value in ("-1", "")):
            self.found.append((node, self._key()))
        elif not self._conditions:
            self.hidden.append((node, self._key()))

    def visit_Call(self, node: cst.Call) -> None:
        names = self.module.names.resolve(node.func)
        if self._conditions or not names:
            return
        if any(name.endswith(".ConfigProto") for name in names):
            counts = argument_value(node, "device_count")
            if isinstance(counts, cst.Dict) and any(
                    isinstance(element, cst.DictElement) and literal(element.key) == "GPU"
                    and m.matches(element.value, m.Integer("0")) for element in counts.elements):
                self.hidden_sessions.append((node, self._key()))
        elif names & HIDING_DEVICES and m.matches(argument_value(node, "devices", 0), m.List(elements=[])) and \
                literal(argument_value(node, "device_type", 1)) == "GPU":
            self.hidden.append((node, self._key()))


# -- what runs per element or per compiled step -------------------------------------------------------------------


@dataclass(frozen=True)
class HotContext:
    """Why a function runs once per element or per step: ``what`` for the message, ``where`` for the evidence.

    Both are written when asked: they cite positions, which cost their module a code generation, and most hot
    functions never appear in a finding."""

    module: ModuleInfo
    node: cst.CSTNode  # the dataset stage that maps it, the call that compiles it, or the compiled function's name
    kind: str  # "a `tf.function`", "a method Keras compiles"; "" when a stage maps it or a call compiles it
    in_dataset: bool
    stage: Stage | None = None  # the dataset stage that maps it, when it runs per element
    in_graph: bool = False  # an op of the TensorFlow 1.x graph a training loop runs; ``node``: the loop's `sess.run`

    @property
    def what(self) -> str:
        if self.stage is not None:
            return (f"for every element of the dataset `.{self.stage.op}()` at "
                    f"{self.module.location(self.node).line_label}")
        if self.in_graph:
            return (f"in the TensorFlow 1.x graph that the training loop's `sess.run` "
                    f"({self.module.location(self.node).display}) evaluates every step")
        return f"on every call of {self.kind}, `{self.node.value}`" if self.kind else \
            "on every call of a `tf.function`"

    @property
    def where(self) -> str:
        at = self.module.location(self.node).display
        if self.stage is not None:
            return f"mapped by `.{self.stage.op}()` at {at}"
        if self.in_graph:
            return f"an op of the graph the training loop runs with `sess.run` ({at}), built by code training reaches"
        return f"`{self.node.value}` is {self.kind} ({at})" if self.kind else f"wrapped by `tf.function(...)` at {at}"


@dataclass(frozen=True)
class Compilation:
    """A repo function compiled by ``tf.function`` or a wrapper of it: decorated (``site`` is None), or wrapped by
    the call ``site`` (``tf.function(step)``, ``tf.function(jit_compile=True)(step)``)."""

    function: FunctionInfo
    site: CallSite | None


class HotFunctions:
    """The repo functions that run per dataset element or per compiled step, and the calls made in mapped lambdas.

    A function is hot when a dataset map takes it, when it is a ``tf.function`` (decorated, or wrapped by a
    ``tf.function(f)`` call), when Keras traces it (``train_step``, ``call``, a loss or metric given to
    ``compile``), or when a hot function calls it.
    """

    def __init__(self, index: SourceIndex, call_at: dict[int, CallSite], compilations: Iterable[Compilation],
                 functions_handed: Callable[[Stage, cst.BaseExpression], list[FunctionInfo]],
                 compiled_losses: Iterable[FunctionInfo]) -> None:
        self.index = index
        self._call_at = call_at  # each call's site, by its node's id
        self.functions_handed = functions_handed  # the repo functions an argument of a stage stands for
        # By the function's node: a notebook and the script exported from it define functions of the same keys.
        self.functions: dict[int, HotContext] = {}
        # Every context a function runs in, ``functions``' first: a parser both the training and the evaluation
        # input map.
        self.contexts: dict[int, list[HotContext]] = {}
        self.lambda_calls: dict[int, HotContext] = {}
        self._calls_by_function: dict[int, list[CallSite]] = {}
        for site in index.calls:
            if site.function is not None:
                self._calls_by_function.setdefault(id(site.function.node), []).append(site)
        self._find_roots(compilations)
        for function in compiled_losses:
            self._mark([function], _step_context(function, "a loss or metric Keras compiles into its train step"))
        self._propagate()

    def context_of(self, site: CallSite) -> HotContext | None:
        if id(site.node) in self.lambda_calls:
            return self.lambda_calls[id(site.node)]
        return self.functions.get(id(site.function.node)) if site.function is not None else None

    def contexts_of(self, site: CallSite) -> list[HotContext]:
        if id(site.node) in self.lambda_calls:
            return [self.lambda_calls[id(site.node)]]
        return self.contexts.get(id(site.function.node), []) if site.function is not None else []

    def _find_roots(self, compilations: Iterable[Compilation]) -> None:
        for stage in self.index.stages():
            keyword = FUNCTION_STAGES.get(stage.op)
            func = argument_value(stage.node, keyword, 0) if keyword else _applied_function(stage)
            if func is None:
                continue
            context = HotContext(stage.module, stage.anchor, "", in_dataset=True, stage=stage)
            if isinstance(func, cst.Lambda):
                # `map(lambda x: parse(x, training=True))`: the calls run per element, and so do the repo
                # functions they call
                for call in m.findall(func, m.Call()):
                    self.lambda_calls[id(call)] = context
                    site = self._call_at.get(id(call))
                    if site is not None:
                        self._mark(self.index.functions_near(site.module, site.names), context)
            else:
                self._mark(self.functions_handed(stage, func), context)
        for compiled in compilations:
            if compiled.site is None:
                self._mark([compiled.function], _step_context(compiled.function, "a `tf.function`"))
            else:
                self._mark([compiled.function], HotContext(compiled.site.module, compiled.site.node, "",
                                                           in_dataset=False))
        for base, methods in KERAS_TRACED.items():
            for cls_info in self.index.subclasses_of(base):
                traced = [f for f in self.index.methods_of(cls_info) if f.name in methods]
                for function in traced:
                    self._mark([function], _step_context(function, "a method Keras compiles"))

    def _mark(self, functions: Iterable[FunctionInfo], context: HotContext) -> None:
        for function in functions:
            self.functions.setdefault(id(function.node), context)
            contexts = self.contexts.setdefault(id(function.node), [])
            if all(known is not context for known in contexts):
                contexts.append(context)

    def _propagate(self) -> None:
        pending = list(self.functions)
        while pending:
            key = pending.pop()
            for callee in self._callees(key):
                if id(callee.node) not in self.functions:
                    self.functions[id(callee.node)] = self.functions[key]
                    pending.append(id(callee.node))
        # Every context reaches the callees too, in a fixpoint apart: each function's first context stays the one
        # above, first in its list.
        for key, context in self.functions.items():
            self.contexts.setdefault(key, [context])
        pending = list(self.contexts)
        while pending:
            key = pending.pop()
            for callee in self._callees(key):
                contexts = self.contexts.setdefault(id(callee.node), [])
                added = [context for context in self.contexts[key] if all(known is not context for known in contexts)]
                if added:
                    contexts.extend(added)
                    pending.append(id(callee.node))

    def _callees(self, key: int) -> Iterator[FunctionInfo]:
        """The repo functions the function of node id ``key`` calls."""
        for site in self._calls_by_function.get(key, ()):
            yield from self.index.functions_near(site.module, site.names)


ARITHMETIC = {cst.Multiply: lambda a, b: a * b, cst.Add: lambda a, b: a + b, cst.Subtract: lambda a, b: a - b,
              cst.FloorDivide: lambda a, b: a // b if b else None}


def _arguments_by_parameter(call: cst.Call, parameters: Sequence[str]) -> dict[str, cst.BaseExpression]:
    """What ``call`` passes for each of ``parameters`` (positionally, up to a ``*args``, or by keyword)."""
    passed: dict[str, cst.BaseExpression] = {}
    for position, arg in enumerate(call.args):
        if arg.star:
            break
        if arg.keyword is None and position < len(parameters):
            passed[parameters[position]] = arg.value
    passed.update({arg.keyword.value: arg.value for arg in call.args if arg.keyword is not None})
    return passed


# `if not p: return`, a whole statement of its own
_RETURN_UNLESS = m.If(test=m.UnaryOperation(operator=m.Not(), expression=m.Name()),
                      body=m.IndentedBlock(body=[m.SimpleStatementLine(body=[m.Return(value=None)])]), orelse=None)


def _training_guard(function: FunctionInfo) -> str | None:
    """The parameter ``p`` of ``function`` whose ``if not p: return`` statement, at the top of its body and ahead
    of any optimizer update there, ends it before the rest: what follows builds the training part."""
    statements = function.node.body.body if isinstance(function.node.body, cst.IndentedBlock) else ()
    for position, statement in enumerate(statements):
        if m.matches(statement, _RETURN_UNLESS) and statement.test.expression.value in function.params \
                and position + 1 < len(statements):
            # (the cheap test first: searching every statement for an update costs a walk of the whole body)
            updated = any(m.findall(before, _UPDATE_CALL) for before in statements[:position])
            return None if updated else statement.test.expression.value
    return None


_STOPS_TRAINING = m.Assign(targets=[m.AssignTarget(m.Attribute(attr=m.Name("stop_training")))], value=m.Name("True"))
# The fewest environment steps between an agent's updates that make the updates a small share of the run (PPO's
# rollouts run hundreds to thousands of steps; DQN-style agents update every 1 to 8).
ROLLOUT_STEPS = 32
# Python's clocks: a test on the time elapsed since a moment the code keeps.
CLOCKS = frozenset({"time.time", "time.perf_counter", "time.monotonic", "timeit.default_timer",
                    "datetime.datetime.now"})


def _yielding_loop(function: FunctionInfo) -> cst.For | cst.While | None:
    """The loop of a generator function that holds all its ``yield``s, innermost: the part that runs per item
    (``for line in f:`` in ``for path in paths: with open(path) as f:``, the file opened once per pass); None for a
    function that yields outside a loop, or doesn't yield."""
    yields = {id(node) for node in m.findall(function.node.body, m.Yield())}
    if not yields:
        return None
    # (the loops holding them all nest one in another: in the walk's order, the innermost comes last)
    return next((loop for loop in reversed(m.findall(function.node.body, m.For() | m.While()))
                 if yields <= {id(node) for node in m.findall(loop.body, m.Yield())}), None)


def _copied_name(copy: cst.Call) -> str:
    """The name a :data:`_HOST_COPY_OF_NAME` call copies."""
    return copy.func.value.value if isinstance(copy.func, cst.Attribute) else copy.args[0].value.value


def _on_some_calls_only(function: FunctionInfo, node: cst.CSTNode) -> bool:
    """Whether ``node`` in ``function``'s body runs on some of its calls only: in the body of an ``if`` that picks
    calls by a count (``if self.step % 10 == 0``), waits for one value (``if count == 140``), stops the training
    that calls it (``self.model.stop_training = True``), or waits for time to pass (:func:`_elapsed_time_test`): a
    per-batch hook's print there is not per batch."""
    module = function.module
    return any(part is branch.body and (m.findall(branch.test, m.Modulo() | m.ComparisonTarget(operator=m.Equal()))
                                        or m.findall(branch.body, _STOPS_TRAINING)
                                        or _elapsed_time_test(module, branch))
               for branch, part in _branches_around(module, node, function.node))


def _elapsed_time_test(module: ModuleInfo, branch: cst.If) -> bool:
    """``if time() - self.start_time > 3600:`` whose body sets ``self.start_time`` again: true once per period
    of the clock, whatever the steps."""
    if not any(module.qualified_names(call.func) & CLOCKS for call in m.findall(branch.test, m.Call())):
        return False
    tested = {module.node_code(n) for n in m.findall(branch.test, m.Name() | m.Attribute())}
    return any(module.node_code(target.target) in tested
               for assign in m.findall(branch.body, m.Assign()) for target in assign.targets)


def _reads_weights(site: CallSite) -> bool:
    """Whether ``site`` (``K.get_value(w)``) reads a model's weights: its argument is a list of them
    (``model.trainable_weights``) or the variable of a loop over one (``for w in self.model.weights:``)."""
    argument = site.node.args[0].value if site.node.args else None
    if argument is None:
        return False
    if m.findall(argument, WEIGHT_LISTS):
        return True
    names = {n.value for n in m.findall(argument, m.Name())}
    parent = site.module.parent(site.node)
    while parent is not None and not isinstance(parent, cst.FunctionDef):
        if isinstance(parent, cst.For) and m.findall(parent.iter, WEIGHT_LISTS) and names & {
                n.value for n in m.findall(parent.target, m.Name())}:
            return True
        parent = site.module.parent(parent)
    return False


def host_built_summary(module: ModuleInfo, write: cst.Call) -> cst.Call | None:
    """The ``tf.Summary`` proto a TensorFlow 1.x writer's ``add_summary`` writes where the code builds it from Python
    values (``tf.Summary(value=[tf.Summary.Value(tag="loss", simple_value=loss)])``), not a summary a run fetched."""
    written = argument_value(write, "summary", 0)
    return written if isinstance(written, cst.Call) and any(
        name.endswith(".Summary") for name in module.qualified_names(written.func)) else None


def recorded_on_some_steps(module: ModuleInfo, node: cst.CSTNode) -> bool:
    """Whether the summaries ``node`` writes are recorded on some steps only: it runs under ``with
    tf.summary.record_if(step % 100 == 0):`` (or a callable that tests a step interval), which turns every summary
    op in the block into a no-op on the other steps."""
    parent = module.parent(node)
    while parent is not None:
        if isinstance(parent, cst.With) and any(
                isinstance(item.item, cst.Call) and module.qualified_names(item.item.func) & SUMMARY_RECORD_IF
                and item.item.args and m.findall(item.item.args[0].value, m.Modulo()) for item in parent.items):
            return True
        parent = module.parent(parent)
    return False


def _branches_on(module: ModuleInfo, node: cst.CSTNode, scope: cst.CSTNode, names: set[str]) -> bool:
    """Whether ``node`` is inside an ``if`` (below ``scope``) whose test reads one of ``names``."""
    return any(part is not branch.test and _reads_names(branch.test, names)
               for branch, part in _branches_around(module, node, scope))


def _branches_around(module: ModuleInfo, node: cst.CSTNode, scope: cst.CSTNode | None = None
                     ) -> Iterator[tuple[cst.If, cst.CSTNode]]:
    """The ``if`` statements around ``node``, innermost first, up to ``scope`` (not included), each with its part
    that holds ``node``: its test, its body or its ``else``."""
    part, parent = node, module.parent(node)
    while parent is not None and parent is not scope:
        if isinstance(parent, cst.If):
            yield parent, part
        part, parent = parent, module.parent(parent)


def _handlers_around(module: ModuleInfo, node: cst.CSTNode, scope: cst.CSTNode) -> Iterator[cst.ExceptHandler]:
    """The ``except`` handlers ``node`` is in, innermost first, up to ``scope`` (not included)."""
    parent = module.parent(node)
    while parent is not None and parent is not scope:
        if isinstance(parent, cst.ExceptHandler):
            yield parent
        parent = module.parent(parent)


def _now_and_then(function: FunctionInfo, node: cst.CSTNode) -> bool:
    """Whether ``node`` runs only on the calls of a method advancing a cursor (``self.pointer += 1``) that find
    what it holds used up or not loaded yet: ``if self.pointer >= self.num_batches: self._load_next_file()``
    (a batch maker that loads a file of many batches once in a while)."""
    if function.class_key is None or not m.findall(function.node.body, m.AugAssign(
            target=m.Attribute(value=m.Name("self")))):
        return False
    return any(part is branch.body and m.matches(branch.test, m.Comparison())
               and m.findall(branch.test, m.Attribute(value=m.Name("self")))
               for branch, part in _branches_around(function.module, node, function.node))


def _split_by_one_test(module: ModuleInfo, nodes: Sequence[cst.CSTNode], scope: cst.CSTNode) -> bool:
    """Whether some ``if`` within ``scope`` holds one of ``nodes`` in its body and another in its ``else``: one of
    them runs whichever way the test goes."""
    parts: dict[int, set[bool]] = {}
    for node in nodes:
        for branch, part in _branches_around(module, node, scope):
            if part is not branch.test:
                parts.setdefault(id(branch), set()).add(part is branch.body)
    return any(len(sides) == 2 for sides in parts.values())


# A flag that tells a training run from an evaluation (`if is_training:`), and the training split or mode a
# split or mode is compared with (`split == "train"`, `mode == tf.estimator.ModeKeys.TRAIN`).
TRAINING_FLAG = re.compile(r"^(is_)?train(ing)?$", re.IGNORECASE)
TRAINING_SPLIT = re.compile(r"^train(ing)?$", re.IGNORECASE)
_SPLIT_TEST = m.Comparison(comparisons=[m.ComparisonTarget(operator=m.Equal() | m.NotEqual() | m.In() | m.NotIn())])


def _true_when_training(test: cst.BaseExpression) -> bool | None:
    """Whether ``test`` holds in a training run (``is_training``, ``split == "train"``) or in an evaluation only
    (``not is_training``, ``mode == ModeKeys.EVAL``, ``subset != "train"``); None when it tells neither."""
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        inner = _true_when_training(test.expression)
        return None if inner is None else not inner
    if isinstance(test, (cst.Name, cst.Attribute)):
        return True if TRAINING_FLAG.match(test.value if isinstance(test, cst.Name) else test.attr.value) else None
    if not m.matches(test, _SPLIT_TEST):
        return None
    target = test.comparisons[0]
    values = [e.value for e in target.comparator.elements] if isinstance(target.comparator, (cst.Tuple, cst.List)) \
        else [target.comparator]
    names = [v.evaluated_value if isinstance(v, cst.SimpleString) else v.attr.value if isinstance(v, cst.Attribute)
             else None for v in values]
    kinds = {None if not isinstance(n, str) else "train" if TRAINING_SPLIT.match(n) else
             "evaluation" if _names_evaluation(n) else None for n in names}
    if len(kinds) != 1 or None in kinds:
        return None
    return (kinds == {"train"}) == isinstance(target.operator, (cst.Equal, cst.In))


def _names_evaluation(name: str) -> bool:
    """Whether ``name`` (a split, a variable, a keyword) names evaluation data: ``val_generator``, ``"test"``,
    ``validation_data``, ``dev``."""
    return bool(NOT_TRAINING_NAME.search(name)) or name.lower() == "dev"


def _width_argument(layer: CallSite, names: list[str] | frozenset[str], keyword: str) -> cst.BaseExpression | None:
    """The argument a layer call gives its width (``units``, ``filters``): TensorFlow 1.x's functional layers take
    the input first (``tf.layers.conv2d(x, 32, 5)``)."""
    functional = any(n.startswith(TF1_FUNCTIONAL_LAYERS) for n in names)
    return argument_value(layer.node, keyword, 1 if functional else 0)


def _named_like_evaluation(name: str) -> bool:
    """Whether a function's name says it evaluates and not that it trains: ``evaluate``, ``test_on_tasks``,
    ``predictValid``; not ``train_and_evaluate``, ``observe`` or ``latest``."""
    words = {word.lower() for word in NAME_WORD.findall(name)}
    return bool(words & EVALUATION_WORDS) and not words & TRAINING_WORDS


def _in_evaluation_branch(module: ModuleInfo, node: cst.CSTNode) -> bool:
    """Whether ``node`` is in the branch of an ``if`` that only an evaluation takes: the ``else`` of ``if split ==
    "train":``, the body of ``if not is_training:``."""
    return any(part is branch.body and _true_when_training(branch.test) is False
               or part is branch.orelse and _true_when_training(branch.test) is True
               for branch, part in _branches_around(module, node))


# A pipeline read for at most this many elements is looked at, not trained on (a guide shows a batch or two).
FEW_ELEMENTS = 10


def _reads_a_few(pipeline: Pipeline) -> bool:
    """Whether the consumer of ``pipeline`` reads a few of its elements: ``next(iter(ds))`` takes one; a loop over
    ``ds.take(2)`` takes two."""
    sink = pipeline.sink
    if sink.role == "iter":
        parent = sink.module.parent(sink.node)
        return isinstance(parent, cst.Arg) and m.matches(sink.module.parent(parent), m.Call(func=m.Name("next")))
    last = pipeline.stages[-1]
    taken = literal(argument_value(last.node, "count", 0)) if last.op == "take" else None
    if sink.role == "loop" and isinstance(taken, int) and not isinstance(taken, bool) and taken <= FEW_ELEMENTS:
        return True
    return sink.is_training and _elements_at_most(pipeline) <= FEW_ELEMENTS


def _elements_at_most(pipeline: Pipeline) -> float:
    """How many elements ``pipeline`` yields at most, where it takes a literal few and repeats them a literal
    number of times (``train_set.take(5).repeat(2)``: 10, fit on a fake target for a demo); infinite when it does
    not say."""
    most = float("inf")
    for stage in pipeline.stages:
        count = literal(argument_value(stage.node, "count", 0)) if stage.node.args else None
        if stage.op == "take" and isinstance(count, int) and not isinstance(count, bool) and count >= 0:
            most = min(most, count)
        elif stage.op == "repeat":
            most = most * count if isinstance(count, int) and not isinstance(count, bool) and count > 0 \
                else float("inf")
    return most


def _updates_weights(body: cst.CSTNode) -> bool:
    """Whether ``body`` updates weights: through an optimizer (``apply_gradients``, ``minimize``), or by hand with
    the gradients a tape computed (``w.assign_sub(lr * grads[0])``, ``for p, g in zip(params, grads):
    p.assign_sub(lr * g)``: tutorials' plain gradient descent)."""
    if m.findall(body, _UPDATE_CALL):
        return True
    gradients = {target.target.value for assign in m.findall(body, m.Assign(value=_GRADIENT_CALL))
                 for target in assign.targets if isinstance(target.target, cst.Name)}
    if not gradients:
        return False
    mentions = m.MatchIfTrue(lambda node: any(name.value in gradients for name in m.findall(node, m.Name())))
    gradients |= {name.value for loop in m.findall(body, m.For(iter=mentions)) for name in m.findall(loop.target,
                                                                                                     m.Name())}
    return bool(m.findall(body, m.Call(func=m.Attribute(attr=m.Name("assign_sub")), args=[m.Arg(value=mentions)])))


def _is_classmethod(function: FunctionInfo) -> bool:
    return function.class_key is not None and "builtins.classmethod" in function.decorators


def _replica_argument(call: cst.Call) -> cst.BaseExpression | None:
    """The function a distribution strategy's ``run`` (``experimental_run_v2``, ``call_for_each_replica``) call
    runs on each replica."""
    if not m.matches(call.func, m.Attribute(attr=m.Name(value=m.MatchIfTrue(REPLICA_RUNNERS.__contains__)))):
        return None
    return argument_value(call, "fn", 0)


def _called_parameters(function: FunctionInfo) -> tuple[str, ...]:
    """The parameters a call of ``function`` binds: a method's (a constructor's) after ``self``."""
    return function.params[1:] if function.class_key is not None else function.params


def _without_evaluation(graph: nx.DiGraph) -> nx.DiGraph:
    """A view of a call graph without the calls that build a model to evaluate or predict, nor the edges from making
    an object to those of its methods only code calls by name: a sampling script that makes the model (to restore it)
    does not run the model's own training loop, which the training script calls by name."""
    return nx.subgraph_view(graph, filter_edge=lambda u, v: not graph[u][v].get("evaluation")
                            and not graph[u][v].get("maybe"))


def _called_by_framework(method: FunctionInfo) -> bool:
    """A method that the framework, or Python, calls on an object by itself: Keras' ``call``, ``build`` and
    ``train_step``, a callback's ``on_*`` hooks, a ``Sequence``'s ``__getitem__``, any special method. Not a
    module's function of such a name (a script's ``build(residual=False)``): only its calls run it."""
    name = method.name
    return method.class_key is not None and (name in FRAMEWORK_CALLED_METHODS or name.startswith("on_") or (
        name.startswith("__") and name.endswith("__")))


def _is_constructor(function: FunctionInfo) -> bool:
    """A class's ``__init__``: what making an object of the class calls."""
    return function.name == "__init__" and function.class_key is not None


def _parameter_compared(test: cst.BaseExpression, params: tuple[str, ...]) -> tuple[str, bool, object] | None:
    """For ``param == "train"`` (or ``!=``): the parameter, whether the test is an equality, and the literal."""
    if not (isinstance(test, cst.Comparison) and isinstance(test.left, cst.Name) and test.left.value in params
            and len(test.comparisons) == 1 and isinstance(test.comparisons[0].operator, (cst.Equal, cst.NotEqual))):
        return None
    target = test.comparisons[0]
    return test.left.value, isinstance(target.operator, cst.Equal), literal(target.comparator)


def _parameter_default(function: FunctionInfo, parameter: str) -> cst.BaseExpression | None:
    params = function.node.params
    return next((p.default for p in (*params.posonly_params, *params.params, *params.kwonly_params)
                 if p.name.value == parameter), None)


def _is_test_function(function: FunctionInfo) -> bool:
    """A module-level ``test()`` or ``test_*()``: a check someone runs by hand or by a test runner, not a training
    entry point (test files are left out whole; this is one left in a model file)."""
    return function.outer is None and function.class_key is None and (
        function.name == "test" or function.name.startswith("test_"))


def _owner_class(function: FunctionInfo | None) -> str | None:
    """The class whose ``self`` a function's code means: its own class, or its outer function's (a closure in a
    method)."""
    if function is None:
        return None
    return function.class_key or (function.outer.class_key if function.outer is not None else None)


def _repeated(module: ModuleInfo, node: cst.CSTNode) -> bool:
    """``node`` runs several times per run of its function: in a loop's body or a comprehension."""
    child, parent = node, module.parent(node)
    while parent is not None and not isinstance(parent, (cst.FunctionDef, cst.Lambda, cst.ClassDef)):
        if isinstance(parent, (cst.For, cst.While)) and child is parent.body or isinstance(
                parent, (cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp)):
            return True
        child, parent = parent, module.parent(parent)
    return False


# A kernel one wide: `kernel_size=1`, or a raw convolution's filter shaped `[1, in, out]`.
_ONE_WIDE = m.Integer("1") | m.List(elements=[m.Element(m.Integer("1")), m.ZeroOrMore()]) | m.Tuple(
    elements=[m.Element(m.Integer("1")), m.ZeroOrMore()])


def _makes_estimator(names: frozenset[str]) -> bool:
    """A call of TensorFlow's Estimator classes (``tf.estimator.Estimator``, ``TPUEstimator``, the canned ones)."""
    return any(n.startswith("tensorflow.") and n.endswith("Estimator") for n in names)


def _variable_shape(module: ModuleInfo, made: cst.Call) -> cst.List | cst.Tuple | None:
    """The shape a weight variable is made with, where the source writes its dimensions out:
    ``tf.get_variable("w", shape=[1, n, 64])``, ``tf.Variable(tf.random_normal([n, 64]))``."""
    if module.qualified_names(made.func) & VARIABLE_FACTORIES:
        shape = argument_value(made, "shape", 1)
    else:
        start = argument_value(made, "initial_value", 0)
        shape = argument_value(start, "shape", 0) if isinstance(start, cst.Call) else None
    return shape if isinstance(shape, (cst.List, cst.Tuple)) and shape.elements else None


def _draws_a_fixed_size(site: CallSite) -> bool:
    """A random draw (:data:`RANDOM_DRAWS`) whose shape is not read off a tensor: a noise vector, a coin."""
    shape = argument_value(site.node, "shape", 0)
    return bool(site.names & RANDOM_DRAWS) and (shape is None or not m.findall(shape, _ELEMENT_SHAPE))


def _wrapped_function(call: cst.Call) -> cst.Name | cst.Attribute | None:
    """The function a call hands to a wrapper, by name: ``wrapper(f, ...)`` or ``wrapper(func=f, ...)``
    (``tf.function``'s parameter), or ``wrapper(...)(f)`` where the wrapper is given options only (else the outer
    call is a call of what the wrapper returned)."""
    if isinstance(call.func, cst.Call) and any(a.keyword is None for a in call.func.args):
        return None
    given = argument_value(call, "func", 0)
    return given if isinstance(given, (cst.Name, cst.Attribute)) else None


def _step_context(function: FunctionInfo, kind: str) -> HotContext:
    return HotContext(function.module, function.node.name, kind, in_dataset=False)


# -- functions a dataset maps -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class MappedFunction:
    """What a ``Dataset.map``/``interleave``/``filter`` runs per element: a lambda, a repo function, or the
    ``__call__`` of a callable object the repo defines."""

    body: cst.CSTNode
    module: ModuleInfo
    function: FunctionInfo | None  # None for a lambda

    @property
    def is_projection(self) -> bool:
        """A function that only selects, renames or regroups fields (``lambda x: x["image"]``, ``lambda a, b: (b,
        a)``, ``def example_fn(data): return {"feature": data["text"]}, data["label"]``), or slices them
        (``lambda window: (window[:, :-1], window[:, 1:])``): no call and no arithmetic (a negative number is
        none), nothing worth running in parallel. Membership and identity tests (``assert key not in result`` while
        merging zipped feature dicts) are Python's, on the structure: no op; so are a container's own methods
        (``for name, tensor in record.items(): x[name] = tensor``), which walk the fields at trace time."""
        work = m.findall(self.body, m.Call() | m.BinaryOperation() | m.UnaryOperation(
            expression=m.DoesNotMatch(m.Integer() | m.Float())) | m.Comparison() | m.BooleanOperation())
        return all((isinstance(node, cst.Comparison) and all(isinstance(target.operator, STRUCTURE_TESTS)
                                                             for target in node.comparisons))
                   or m.matches(node, _CONTAINER_METHOD_CALL) for node in work)


# -- sizes written as literals ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class EagerSwitch:
    """Where the program turns compiled steps off: Keras' ``run_eagerly`` (``keras``), given to ``compile`` or set on
    the model, or ``tf.config.run_functions_eagerly(True)``."""

    module: ModuleInfo
    node: cst.CSTNode  # the call or the assignment: where the program runs it
    anchor: cst.CSTNode  # what the finding points at: the argument, or the assigned value
    value: cst.BaseExpression  # what turns it on (`True`, a constant, a parameter defaulting to True)
    function: FunctionInfo | None
    keras: bool
    call: CallSite | None  # the call, where a call turns it on
    # A layer made `dynamic=True` (its `call` runs only eagerly): Keras runs every step of a model holding it eagerly.
    layer: ClassInfo | None = None


@dataclass(frozen=True)
class IntegerLiteral:
    """An integer literal that sets a value, written directly or through a module constant (possibly elsewhere)."""

    literal: cst.Integer
    module: ModuleInfo  # where the literal is written
    constant: str | None  # the constant's name when the value is written through one

    @property
    def value(self) -> int:
        return int(self.literal.evaluated_value)


# -- the trained model: where it is built, and what mixed precision changes there -------------------------------

KERAS_OPTIMIZER_PREFIX = "keras.optimizers."
TRAINABLE_ATTRIBUTES = frozenset({"trainable_variables", "trainable_weights"})
_TRAINABLE = m.Attribute(attr=m.Name(value=m.MatchIfTrue(TRAINABLE_ATTRIBUTES.__contains__)))
BUILDER_DEPTH = 4  # builders calling builders: how far the model is followed
# Where the classes a repo's layers and models extend come from: Keras and TensorFlow run their methods.
FRAMEWORK_PREFIXES = ("keras.", "tensorflow.", "tf_keras.", "sonnet.")
LAYER_DEPTH = 6  # how far layers are counted into the helpers and layer classes a model is built with
# How many assignments and callers a width is followed through: a library layer's `Conv1D(self.nb_filters)` reads
# what its constructor was given, which its owner passed on from its own constructor, from a helper's parameter.
WIDTH_DEPTH = 6


# Layers whose matrix multiplications 16-bit units speed up, by the last part of their name (Keras' and TF1's).
# Not a depthwise convolution: one filter per channel is little arithmetic per byte moved, which 16-bit units do not
# speed up (a separable one's pointwise half is a product over channels, and counts).
CONVOLUTION_LAYERS = frozenset({"conv1d", "conv2d", "conv3d", "convolution1d", "convolution2d", "convolution3d",
                                "conv1dtranspose", "conv2dtranspose", "conv3dtranspose", "separableconv1d",
                                "separableconv2d"})
# An attention layer is four projections; TF1 graphs multiply by their weights themselves (``tf.matmul``).
# Keras' recurrent layers are three (GRU) or four (LSTM) such products at every time step.
# TensorFlow 1.x's cells (`tf.contrib.rnn.BasicLSTMCell(num_units)`, `tf.nn.rnn_cell.GRUCell`) and Keras' too.
RECURRENT_CELLS = {"simplernncell": 1, "basicrnncell": 1, "grucell": 3, "lstmcell": 4, "basiclstmcell": 4,
                   "lstmblockcell": 4, "layernormbasiclstmcell": 4, "grublockcell": 3, "grublockcellv2": 3}
DENSE_LAYERS = {"dense": 1, "fullyconnected": 1, "matmul": 1, "multiheadattention": 4, "simplernn": 1, "gru": 3,
                "cudnngru": 3, "lstm": 4, "cudnnlstm": 4, **RECURRENT_CELLS}
RECURRENT_LAYERS = frozenset({"simplernn", "gru", "cudnngru", "lstm", "cudnnlstm", *RECURRENT_CELLS})
# A recurrent layer of this many units or more does the work of several narrower ones at every time step (a
# GRU(1024) language model); a wide Dense on MNIST-sized vectors does not.
WIDE_UNITS = 1024
WIDE_FACTOR = 4
LOOP_REPEAT = 4  # layers built in a loop or a comprehension: counted as this many (ResNet stages, U-Net levels)
# `discriminator(fake, reuse=True)`: TensorFlow 1.x applies the variables an earlier call made again, as a Keras
# model called twice (on real and generated images) does: the same layers, counted once.
_REAPPLIES_VARIABLES = m.Call(args=[m.ZeroOrMore(), m.Arg(keyword=m.Name("reuse"), value=m.Name("True")),
                                     m.ZeroOrMore()])
# What a model builds, at the least, to keep 16-bit units busy enough to gain: counted as above. Measured against
# the labelled repos: ResNets, YOLO, U-Net, GANs' generators and transformers are above; MNIST tutorials (two
# convolutions) and reinforcement-learning MLPs (three or four dense layers) below.
# TensorFlow 1.x layers called as functions of their input: ``tf.layers.dense(x, units)``, ``slim.conv2d(x, n)``.
TF1_FUNCTIONAL_LAYERS = ("tensorflow.layers.", "tensorflow.contrib.layers.", "tensorflow.contrib.slim.")
# Slim's `repeat(net, 3, slim.conv2d, 256, [3, 3])`: a layer applied a number of times, its arguments after the
# count and the layer.
LAYER_REPEATS = frozenset({"tensorflow.contrib.slim.repeat", "tensorflow.contrib.layers.repeat", "tf_slim.repeat",
                           "tf_slim.layers.repeat"})
HEAVY_CONVOLUTIONS = 4
# A shallow network whose every convolution the source writes narrower than this (a few-shot learner's Conv-4 of 64
# filters, a small classifier's 32-64-filter stack) does a few hundred million multiply-adds per image at most:
# heavy only on large images (:data:`LARGE_IMAGE_SIDE`) or as deep as :data:`DEEP_CONVOLUTIONS`.
WIDE_FILTERS = 128
LARGE_IMAGE_SIDE = 128
# On images this small (MNIST, CIFAR) a few convolutions are cheap: only a deep network keeps 16-bit units busy.
SMALL_IMAGE_SIDE = 32
DEEP_CONVOLUTIONS = 8
# On MNIST-size images no stack of layers keeps 16-bit units busy: the maps shrink to a few pixels within a layer or
# two. Every model at that size in the labelled repos (GANs of 512-filter layers, 19-layer CNNs) gains a little at
# most.
TINY_IMAGE_SIDE = 28
# The work of a known architecture on one 224-pixel image, in billions of multiply-adds (its paper's figure), by
# the start of its name (the longest that matches; 4, a ResNet50's, for the others). On smaller images the work
# falls with the pixels: a MobileNet on 48-pixel faces does 0.03, too little to be sure 16-bit units gain; a VGG19
# on 32-pixel CIFAR images does 0.4, a ResNet50 on them 0.08.
APPLICATION_GMACS = {"VGG19": 19.6, "VGG": 15.5, "ResNet152": 11.5, "ResNet101": 7.8, "ResNet": 4.1,
                     "InceptionResNet": 13.0, "Inception": 5.7, "Xception": 8.4, "MobileNetV3Small": 0.06,
                     "MobileNetV3": 0.22, "MobileNetV2": 0.3, "MobileNet": 0.57, "DenseNet201": 4.3,
                     "DenseNet169": 3.4, "DenseNet": 2.9, "NASNetMobile": 0.56, "NASNet": 23.8,
                     "EfficientNetB0": 0.39, "EfficientNetB1": 0.7, "EfficientNetB2": 1.0, "EfficientNetB3": 1.8,
                     "EfficientNetB4": 4.2, "EfficientNetB5": 9.9, "EfficientNetB6": 19.0, "EfficientNetB7": 37.0,
                     "EfficientNetV2S": 8.8, "EfficientNetV2M": 24.0, "EfficientNetV2L": 56.0, "EfficientNetV2": 1.5,
                     "ConvNeXtTiny": 4.5, "ConvNeXtSmall": 8.7, "ConvNeXtBase": 15.4, "ConvNeXt": 34.4}
APPLICATION_SIDE = 224
HEAVY_APPLICATION_GMACS = 0.05  # a MobileNetV2 on 96-pixel images, a MobileNet on 64-pixel ones
# Where the training's batches are written as literals, the work of a step: a known architecture's under 8 billion
# multiply-adds per step (an Xception on eight 64-pixel images, 3; a ResNet50 on two 224-pixel ones, 8), or fewer
# than 65536 pixels per step for a model known by its layers (eight 64-pixel images, 32 CIFAR ones), is over before
# the kernels' launches: the step waits on those, not on matrix units.
HEAVY_STEP_GMACS = 8.0
SMALL_STEP_PIXELS = 65536
# Where a Keras image iterator takes its batch size by position (`datagen.flow(x, y, 32)`).
IMAGE_ITERATOR_BATCH_POSITION = {"flow": 2}
# Datasets of small images, by a word in the loader's name or a string it is given (`keras.datasets.mnist`,
# `tfds.load("fashion_mnist")`, `input_data.read_data_sets("MNIST_data")`, a repo's `load_mnist()`): their side in
# pixels. CIFAR's 32 asks for a deep network (DEEP_CONVOLUTIONS), not nothing: a 4-layer 64-128-filter CNN gains
# little, a ResNet or a GAN of many 256-filter layers still counts as heavy.
SMALL_IMAGE_DATASETS = {"mnist": 28, "cifar": 32}
# Where a model declares the shape of its inputs: (batch,) height, width, channels.
INPUT_DECLARATIONS = frozenset({"input", "inputlayer", "placeholder"})
HEAVY_DENSE = 12
IMAGE_CHANNELS = frozenset({1, 3, 4})  # grey, RGB, RGBA: what tells a channels-first shape from a channels-last one
# TensorFlow's raw ops take the weight variable: its last dimension is the width (argument keyword and position).
WEIGHT_OPERANDS = {"tensorflow.matmul": ("b", 1), "tensorflow.linalg.matmul": ("b", 1),
                   "tensorflow.nn.conv1d": ("filters", 1), "tensorflow.nn.conv2d": ("filter", 1),
                   "tensorflow.nn.conv3d": ("filter", 1), "tensorflow.nn.atrous_conv2d": ("filters", 1)}
VARIABLE_FACTORIES = frozenset({"tensorflow.get_variable"})  # shape is the second argument
VARIABLES = frozenset({"tensorflow.Variable"})  # shape is its initial value's first argument
GLOBAL_STEPS = frozenset(f"tensorflow{v1}.train.{made}global_step" for v1 in ("", ".compat.v1")
                         for made in ("get_or_create_", "get_", "create_"))
# Token embeddings: what a text CNN convolves.
EMBEDDING_LOOKUPS = frozenset({"tensorflow.nn.embedding_lookup", "tensorflow.compat.v1.nn.embedding_lookup"})
# A word that names something, not one given a value: `training=True` (a keyword), `self.step = 0` (a binding).
NAMING_WORD = re.compile(r"\w+\b(?!\s*=[^=])")
EXITS = frozenset({"builtins.exit", "builtins.quit", "sys.exit", "os._exit"})


def _calls_exit(module: ModuleInfo, statement: cst.BaseSmallStatement) -> bool:
    """``sys.exit(1)``, ``exit()``: a statement that ends the program."""
    return isinstance(statement, cst.Expr) and isinstance(statement.value, cst.Call) and bool(
        module.qualified_names(statement.value.func) & EXITS)


def _copies_memory(site: CallSite) -> bool:
    """Whether ``site`` copies an array already in memory (``np.array(X[i * n:(i + 1) * n])``, a slice of the data),
    or gives such a copy another shape (``np.reshape(np.array(y[i:j]), (-1, 1))``): a copy of the batch, no work of
    its own; not one that builds its array in Python (``np.array([[ord(c) for c in word]])``, a comprehension or
    other calls inside)."""
    copies = ARRAY_COPIES | ARRAY_VIEWS

    def copying(call: cst.Call) -> bool:
        names = site.module.qualified_names(call.func)
        return bool(names) and names <= copies

    comprehension = m.ListComp() | m.GeneratorExp() | m.SetComp() | m.DictComp()
    return bool(site.names) and site.names <= copies and not any(
        m.findall(arg.value, comprehension) or not all(map(copying, m.findall(arg.value, m.Call())))
        for arg in site.node.args)


def _exits_after(module: ModuleInfo, node: cst.CSTNode, loop: cst.For | cst.While) -> bool:
    """Whether the program ends whenever the body of ``loop`` has run ``node``: a statement after it in its block,
    or in a block around that one inside the loop, exits or raises (a debugging notebook's ``train_step(batch)``
    followed by ``sys.exit(1)``): ``node`` runs once, not once per iteration. (A ``break`` leaves only this loop: a
    loop around it may run it again, as an agent's episodes do.)"""
    def exits(statement: cst.CSTNode) -> bool:
        return isinstance(statement, cst.SimpleStatementLine) and any(
            isinstance(part, cst.Raise) or _calls_exit(module, part) for part in statement.body)

    child, parent = node, module.parent(node)
    while parent is not None and parent is not loop:
        body = getattr(parent, "body", None)
        if isinstance(body, Sequence):
            position = next((i for i, statement in enumerate(body) if statement is child), len(body))
            if any(exits(statement) for statement in body[position + 1:]):
                return True
        child, parent = parent, module.parent(parent)
    return False


# The words of a Python name: `evaluate_on_tasks`, `predictValid`, `TEST_LOOP`.
NAME_WORD = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])")
EVALUATION_WORDS = frozenset({"eval", "evaluate", "evaluation", "validate", "validation", "val", "test", "predict",
                              "inference", "infer"})
TRAINING_WORDS = frozenset({"train", "training", "fit", "learn"})
COMMENT_LINE = re.compile(r"^[ \t]*#.*$", re.MULTILINE)
# Command-line frameworks that make a module's functions commands without the module naming them.
EXPOSING_CLIS = ("fire.Fire",)
# What a prioritized replay's priorities are updated by, or named (`update_priorities`, `td_errors`, `priorities`).
_PRIORITY_NAME = re.compile(r"priorit|td_?err", re.IGNORECASE)
# Code that looks a function up by a name it holds as a string (`getattr(module, args.algo)`, `globals()[name]`).
NAME_LOOKUP = re.compile(r"\b(?:getattr|globals|locals|vars|eval|exec|import_module|__import__)\s*\(|__dict__")
# Placeholders a training run feeds one setting through, by name (`learning_rate: lr_gen.get_lr(it)`, `keep_prob`,
# `is_training`): a number the host computes per step, never the batch. (`lr` alone: `input_lr` holds a
# super-resolution model's low-resolution images.)
SETTING_FEEDS = re.compile(
    r"^lr$|(?:^|_)(?:learning_rate|keep_prob|dropout(?:_rate|_prob)?|is_training|training|phase)$", re.IGNORECASE)
FEED_HOPS = 4  # assignments followed from a graph op's result to the summary it feeds
EMBEDDING_HOPS = 8  # names, the calls bound to them and the tensors those reshape, followed back from a convolution
# Weights loaded as constants (a pretrained VGG's arrays: `W = tf.constant(W)`).
CONSTANT_WEIGHTS = frozenset({"tensorflow.constant", "tensorflow.convert_to_tensor"})
# Ops that give a tensor another shape or type: a weight reshaped for `tf.matmul` is still a weight.
RESHAPING_OPS = frozenset(f"tensorflow.{name}" for name in ("reshape", "transpose", "cast", "identity",
                                                            "squeeze", "expand_dims"))
# Ops whose output is still a sequence's token embeddings, reshaped or with some zeroed.
EMBEDDING_KEEPING_OPS = RESHAPING_OPS | {"tensorflow.nn.dropout", "tensorflow.layers.dropout"}
# Layers narrower than this (units or filters written as a number, a constant, or a number the caller passes) are
# no work for matrix units: MNIST tutorials' and sequence demos' 10-32 filters, RL networks' 24-64 units.
# A 1-D filter does a 2-D one's work / k; a recurrent layer's products at each time step are of one step's inputs:
# a 3x256 chatbot GRU keeps no 16-bit unit busy.
NARROW_WIDTH = {"dense": 128, "convolution": 64, "convolution1d": 128, "recurrent": 512}


@dataclass(frozen=True)
class _Passed:
    """What ``site`` passes for the parameters of the function it calls, by parameter name; ``outer``: what was
    passed to the function ``site`` is in, where its arguments are that function's parameters in turn."""

    site: CallSite
    arguments: dict[str, cst.BaseExpression]
    outer: "_Passed | None" = None
    function: "FunctionInfo | None" = None  # the function whose parameters these are (a class's ``__init__``)
    # The class instantiated, whose methods ``self.method(...)`` runs: a subclass's override of what a base's
    # ``__init__`` calls (Caffe-TensorFlow's `Network.__init__` runs `self.setup()`, each network's own).
    instance: "ClassInfo | None" = None


@dataclass(frozen=True)
class ModelCompute:
    """What the code that builds a trained model constructs, layers in loops and in helpers called several times
    counted as often as they run: enough to tell a model that keeps 16-bit units busy from one too small to gain."""

    convolutions: int
    dense: int
    application: str | None  # the known architecture it builds (`keras.applications`, Hugging Face, Slim), if any
    # Of the convolutions, those the source does not write narrower than :data:`WIDE_FILTERS`.
    wide_convolutions: int = 0
    # Some layers are made in a loop whose count the source does not write (counted :data:`LOOP_REPEAT` times):
    # the network may be deeper than counted.
    depth_guessed: bool = False
    image_side: int | None = None  # the smallest side of the images its inputs are declared with, if written
    partners: int = 0  # the other models its training steps train too, counted with it (a GAN's two)
    # The side is what every run trains on: declared by the inputs, or of a dataset the code loads unconditionally
    # (not `if dataset == "mnist":`, one choice of several)
    side_certain: bool = True
    # The statement that freezes the known architecture for the whole training (`base.trainable = False`, never
    # undone before the name is bound again): only the layers on top of it learn.
    frozen: str | None = None
    # The largest batch its training is written with, where every batch size of its training is a literal.
    batch: int | None = None

    @property
    def heavy(self) -> bool:
        if self.small_steps:
            return False
        small_images = self.image_side is not None and self.image_side <= SMALL_IMAGE_SIDE
        if small_images and self.side_certain and self.image_side <= TINY_IMAGE_SIDE:
            return False
        if self.application is not None:
            return self.image_side is None or self.application_gmacs >= HEAVY_APPLICATION_GMACS
        return self.dense >= HEAVY_DENSE or self.heavy_by_convolutions

    @property
    def heavy_by_convolutions(self) -> bool:
        small_images = self.image_side is not None and self.image_side <= SMALL_IMAGE_SIDE
        return self.convolutions >= DEEP_CONVOLUTIONS or not small_images and \
            self.convolutions >= HEAVY_CONVOLUTIONS and not self.shallow_and_narrow

    @property
    def shallow_and_narrow(self) -> bool:
        """Fewer convolutions than a deep network's, each written narrower than :data:`WIDE_FILTERS`, on images not
        declared large: too little work per image for 16-bit units, however many images a step takes."""
        return self.convolutions < DEEP_CONVOLUTIONS and not self.wide_convolutions and not self.depth_guessed and \
            (self.image_side is None or self.image_side < LARGE_IMAGE_SIDE)

    @property
    def small_steps(self) -> bool:
        """Whether the batches and images the source writes make each step too little work to keep 16-bit units
        busy (:data:`HEAVY_STEP_GMACS`, :data:`SMALL_STEP_PIXELS`), whatever the layers."""
        if self.batch is None or self.image_side is None:
            return False
        if self.application is not None:
            return self.application_gmacs * self.batch < HEAVY_STEP_GMACS
        return self.batch * self.image_side ** 2 < SMALL_STEP_PIXELS

    @property
    def small(self) -> bool:
        """At most half the layers that make a model heavy, and no known architecture: a GAN's small discriminator
        (three narrow convolutions and one wide), a toy MLP."""
        return self.application is None and self.convolutions <= HEAVY_CONVOLUTIONS // 2 and \
            self.dense <= HEAVY_DENSE // 2

    @property
    def heavy_by_dense_layers(self) -> bool:
        """Heavy by the count of its dense layers alone (no known architecture, too few convolutions): what the
        count says least about, as their work scales with the tokens or rows per step the source rarely shows."""
        return self.heavy and self.application is None and not self.heavy_by_convolutions

    @property
    def application_gmacs(self) -> float:
        """The work of the known architecture it builds on one of its images (:data:`APPLICATION_GMACS`)."""
        name = (self.application or "").rsplit(".", 1)[-1]
        family = max((f for f in APPLICATION_GMACS if name.startswith(f)), key=len, default=None)
        work = APPLICATION_GMACS[family] if family is not None else APPLICATION_GMACS["ResNet"]
        return work * ((self.image_side or APPLICATION_SIDE) / APPLICATION_SIDE) ** 2

    @property
    def tiny(self) -> bool:
        """Not one layer counted (a linear or logistic regression, a kernel SVM, a few units): a pass over a batch
        takes microseconds."""
        return self.application is None and not self.convolutions and not self.dense

    def describe(self) -> str:
        batches = f" in batches of {self.batch}" if self.batch is not None and self.image_side is not None else ""
        if self.application is not None:
            images = f", on {self.image_side}-pixel images{batches}" if self.image_side is not None else ""
            return f"it builds `{self.application}`, a known architecture from its library{images}"
        images = f" on {self.image_side}-pixel images{batches}" if self.image_side is not None else ""
        builders = "its building code" if not self.partners else \
            f"its building code and that of the {self.partners} other model{'s' * (self.partners > 1)} trained " \
            "in the same steps"
        narrow = f", every convolution narrower than {WIDE_FILTERS} filters" if self.convolutions and \
            self.shallow_and_narrow else ""
        return (f"{builders} makes {self.convolutions} convolution and {self.dense} dense layers{images}{narrow} "
                f"(counting a loop once per value it runs over, {LOOP_REPEAT} times where the source does not "
                f"write them out, each call of a helper, and only layers of {NARROW_WIDTH['convolution']}+ filters "
                f"or {NARROW_WIDTH['dense']}+ units, {NARROW_WIDTH['recurrent']}+ for a recurrent one)")


@dataclass
class _LayerTally:
    """What :meth:`SourceQueries._count_layers` adds up; ``weight_variables``: the variables (by node) of the raw
    ops counted already, made outside the op's function (a recurrence applies one to every time step)."""

    convolutions: int = 0
    dense: int = 0
    application: str | None = None
    image_side: int | None = None
    side_certain: bool = True
    weight_variables: set[int] = field(default_factory=set)
    frozen: str | None = None
    wide_convolutions: int = 0
    depth_guessed: bool = False

    def compute(self, partners: int = 0) -> ModelCompute:
        return ModelCompute(self.convolutions, self.dense, self.application, self.wide_convolutions,
                            self.depth_guessed, self.image_side, partners, self.side_certain, self.frozen)

    def add_convolutions(self, times: int, width: int | None) -> None:
        self.convolutions += times
        if width is None or width >= WIDE_FILTERS:
            self.wide_convolutions += times


@dataclass(frozen=True)
class RunStop:
    """A statement that raises whatever data a run brings, which every run of some code passes first: ``cause``
    says what raises and why, as Python would; ``location`` is where."""

    cause: str
    location: Location


@dataclass(frozen=True)
class SkippedBranch:
    """A branch that a run with the defaults the source sets does not take: ``test`` (as written, at ``location``)
    is ``value`` with those defaults, and the branch runs only when it is not."""

    test: str
    location: Location
    value: bool


@dataclass(frozen=True)
class AcceleratorRequest:
    """Where a program asks for an accelerator (``device``: "gpu" or "tpu"): it is meant to train on one."""

    device: str
    location: Location


@dataclass(frozen=True)
class PrecisionSetting:
    """Whether the code a training runs may turn mixed precision on (``policy_set``); else ``elsewhere``, a setting
    of the repo it does not run, or one it runs only when ``off_by_default`` is turned on."""

    policy_set: bool
    elsewhere: Location | None = None
    off_by_default: SkippedBranch | None = None


@dataclass(frozen=True)
class ModelConstruction:
    """Where a trained Keras model is constructed: ``Sequential(...)``, ``Model(inputs, outputs)``, or the
    constructor of a ``keras.Model`` subclass; ``builder`` is the repo function the training calls to get it."""

    kind: str  # "sequential", "functional", "subclassed"
    call: cst.Call
    module: ModuleInfo
    scope: FunctionInfo | None  # the function the construction is written in (None: module level)
    builder: FunctionInfo | None
    model_class: ClassInfo | None = None


@dataclass(frozen=True)
class OutputEdit:
    """How the model's output is kept in float32: ``dtype`` passes ``dtype="float32"`` to the output layer's
    constructor ``node``; ``wrap`` applies a float32 linear ``Activation`` to the outputs expression ``node``."""

    kind: str
    node: cst.CSTNode
    module: ModuleInfo


@dataclass(frozen=True)
class LossScaling:
    """What a custom GradientTape loop needs under ``mixed_float16``: inside the ``tape`` block, the loss scaled by
    the optimizer that applies its gradients; the ``gradient`` call taking the scaled loss; the optimizer
    ``construction`` wrapped in a ``LossScaleOptimizer`` (None: Keras' compile wraps it)."""

    module: ModuleInfo
    tape: cst.With
    loss: str
    gradient: cst.Call
    optimizer: cst.BaseExpression
    construction: cst.Call | None


@dataclass
class MixedPrecisionPlan:
    """Where a mixed-precision policy goes so that it holds for the trained model(s), and what else must change;
    ``problem`` says why it cannot be written as one patch (then nothing else is to be trusted as a patch)."""

    training: ModuleInfo  # the module whose training calls the plan is for
    models: list[ModelConstruction]
    policy_before: list[tuple[ModuleInfo, cst.BaseStatement]] = field(default_factory=list)
    outputs: list[OutputEdit] = field(default_factory=list)
    loss_scaling: list[LossScaling] = field(default_factory=list)
    problem: str | None = None

    @property
    def modules(self) -> list[ModuleInfo]:
        """The modules the patch would change, in path order."""
        touched = [m for m, _ in self.policy_before] + [e.module for e in self.outputs] + \
            [s.module for s in self.loss_scaling]
        return sorted({id(m): m for m in touched}.values(), key=lambda m: m.path.as_posix())


class _ModelResolver:
    """Follows a trained model back to its construction: names to their assignments (in the function, the functions
    around it, the module, or ``self.x`` in the class's methods), builder functions to what they return."""

    def __init__(self, queries: "SourceQueries") -> None:
        self.queries = queries
        self.index = queries.index

    def receiver(self, module: ModuleInfo, scope: FunctionInfo | None, expression: cst.BaseExpression,
                 depth: int = 0) -> ModelConstruction | str | None:
        """The construction ``expression`` (a model, as written at a training call) stands for, why it is unknown,
        or None when it is no Keras model (a scikit-learn estimator's ``fit``)."""
        if depth > BUILDER_DEPTH:
            return "the model comes through more builder functions than advisor follows"
        if isinstance(expression, cst.Call):
            return self._call(module, scope, expression, depth)
        if m.matches(expression, m.Name("self")):
            return "the training step is a method of the model's own class, so the policy belongs in the script " \
                   "that builds the model, before it does"
        getter = self._property(scope, expression)
        if getter is not None:  # `self.model`, a property that builds the model on first use
            return self._returned_by(getter, depth)
        value = self.queries.assigned_value(module, scope, expression)
        if value is None:
            return f"advisor cannot tell where `{module.node_code(expression)}` is built"
        value_module, value_scope, node = value
        return self.receiver(value_module, value_scope, node, depth + 1)

    def _call(self, module: ModuleInfo, scope: FunctionInfo | None, call: cst.Call,
              depth: int) -> ModelConstruction | str | None:
        names = module.qualified_names(call.func)
        if names & SEQUENTIAL:
            return ModelConstruction("sequential", call, module, scope, None)
        if names & KERAS_MODEL:
            return ModelConstruction("functional", call, module, scope, None)
        subclass = self.model_class(names)
        if subclass is not None:
            return ModelConstruction("subclassed", call, module, scope, None, subclass)
        builders = self.index.functions_named(*names) or self._method(scope, call.func)
        if len(builders) == 1:
            return self._returned_by(builders[0], depth)
        if names and not any(n.startswith(TENSOR_APIS) for n in names):
            return None  # known, and no TensorFlow or Keras model
        return f"`{module.node_code(call.func)}` builds the model where advisor cannot rewrite it"

    def _returned_by(self, builder: FunctionInfo, depth: int) -> ModelConstruction | str | None:
        """The one model construction what ``builder`` returns stands for (each of its returns)."""
        returned = [r.value for r in m.findall(builder.node.body, m.Return(value=m.DoNotCare()))
                    if r.value is not None and self.queries.enclosing_function(builder.module, r) is builder]
        results = [self.receiver(builder.module, builder, value, depth + 1) for value in returned]
        if all(r is None for r in results):
            return None
        constructions = {id(r.call): r for r in results if isinstance(r, ModelConstruction)}
        if len(constructions) != 1 or not all(isinstance(r, ModelConstruction) for r in results):
            return f"`{builder.name}` returns more than one model, or one advisor cannot follow"
        found = next(iter(constructions.values()))
        return ModelConstruction(found.kind, found.call, found.module, found.scope, builder, found.model_class)

    def _property(self, scope: FunctionInfo | None, expression: cst.BaseExpression) -> FunctionInfo | None:
        """The property of the class of ``scope``'s method that ``expression`` (``self.model``) reads, if it is one."""
        if scope is None or scope.class_key is None or not m.matches(expression, m.Attribute(value=m.Name("self"))):
            return None
        return next((f for f in self.index.methods_of(self.index.class_of(scope)) if f.name == expression.attr.value
                     and f.decorators & PROPERTY_DECORATORS), None)

    def constructs_keras(self, module: ModuleInfo, call: cst.Call) -> bool:
        """A call that builds a Keras layer or model (a subclass of the repo's included)."""
        names = module.qualified_names(call.func)
        return bool(names & (KERAS_INPUT | SEQUENTIAL | KERAS_MODEL)) or any(
            n.startswith(MODEL_BUILDING_PREFIXES) for n in names) or self.model_class(names) is not None

    def _method(self, scope: FunctionInfo | None, func: cst.BaseExpression) -> list[FunctionInfo]:
        """``self.build_model`` called in a method: that method of the class."""
        if scope is None or scope.class_key is None or not m.matches(func, m.Attribute(value=m.Name("self"))):
            return []
        return [f for f in self.index.methods_of(self.index.class_of(scope)) if f.name == func.attr.value]

    def model_class(self, names: frozenset[str]) -> ClassInfo | None:
        """The repo's ``keras.Model`` subclass one of ``names`` (a callee's) refers to."""
        subclasses = self.queries._keras_model_classes
        return next((c for c in self.queries._classes_named(names) if c.key in subclasses), None)



class _Assigned(cst.CSTVisitor):
    """The values of every ``target = value`` (single target) in a block; nested definitions left out."""

    def __init__(self, target: m.BaseMatcherNode) -> None:
        super().__init__()
        self.target = target
        self.values: list[cst.BaseExpression] = []

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return False

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        return False

    def visit_Assign(self, node: cst.Assign) -> None:
        if len(node.targets) == 1 and m.matches(node.targets[0].target, self.target):
            self.values.append(node.value)


# Augmented assignments that make a non-negative number larger: `n_filters *= 2`, `units += 64`, `channels <<= 1`.
_GROWING_ASSIGNMENT = m.MultiplyAssign() | m.AddAssign() | m.LeftShiftAssign()
# More doublings than any network's widths go through (a counter multiplied in a training loop).
_MAX_DOUBLINGS = 32


def _assignments(block: cst.CSTNode, target: m.BaseMatcherNode) -> list[cst.BaseExpression]:
    visitor = _Assigned(target)
    visit_reading(block, visitor)
    return visitor.values


def _is_layer_constructor(module: ModuleInfo, node: cst.BaseExpression) -> bool:
    """A call of a Keras layer class (``keras.layers.Dense(10)``), not of a functional helper like ``concatenate``."""
    return isinstance(node, cst.Call) and any(
        n.startswith("keras.layers.") and n.rsplit(".", 1)[-1][:1].isupper() for n in module.qualified_names(node.func))


def _statement_in(body: Sequence[cst.BaseStatement], module: ModuleInfo, node: cst.CSTNode) -> cst.BaseStatement | None:
    """The statement of ``body`` that holds ``node``."""
    child, parent = node, module.parent(node)
    while parent is not None and child not in body:
        child, parent = parent, module.parent(parent)
    return child if child in body else None


class SourceQueries:
    """The shared questions about one index (see the module doc)."""

    def __init__(self, index: SourceIndex) -> None:
        self.index = index
        self._mixed_precision_plans: dict[bool, list[MixedPrecisionPlan]] = {}
        self._program_runs: dict[tuple, set] = {}  # what each program runs: many models ask about the same ones
        self._training_guards: dict[int, str | None] = {}  # by function node: every call of a function asks
        self._skipped_branches: dict[int, list[tuple[int, int, SkippedBranch]]] = {}  # by module
        self._exit_lines: dict[int, int | None] = {}  # by module
        # by function (or module) node: the loops reading an iterator there, with their lines (_inspects_only)
        self._iterator_reading_loops: dict[int, list[tuple[int, cst.For | cst.While]]] = {}
        self._inspecting_sinks: dict[tuple[int, str], bool] = {}  # by consumer node and role (_inspects_only)
        self._local_settings: dict[int, dict[str, cst.BaseExpression]] = {}  # by function node: name -> value
        self._statement_orders: dict[int, dict[int, int]] = {}  # by module
        self._runner_parameters: dict[int, frozenset[str]] = {}  # by function node (_parameters_run)
        # by function (or module) node: name -> what it is bound to, in source order (a dict used as an ordered set)
        self._aliases: dict[int, dict[str, dict[str, None]]] = {}
        self._call_graph_building = False  # while it is, values are read from syntax and constants only
        self._module_word_counts: dict[int, Counter[str]] = {}  # by module: the words of its code (_word_counts)
        self._module_strings: dict[int, Counter[str]] = {}  # by module: its strings' text, counted
        self._returned_calls: dict[int, list[CallSite | None]] = {}  # by function node (_calls_returned)
        self._function_spans: dict[int, list[tuple[int, int, FunctionInfo]]] = {}  # by module: lines -> function
        self._assigned_attributes: dict[int, dict[str, set[str]]] = {}  # by module
        self._step_constructions: dict[int, list[list[CallSite]]] = {}  # by training step node
        self._training_reached: dict[tuple[int, int], bool] = {}  # by (call node id, depth)
        self._failed_imports: dict[tuple[int, bool], cst.ImportFrom | None] = {}  # by module, and as a script
        self._words: dict[int, frozenset[str]] = {}  # by module: what its code names outside comments
        self._raising_statements: dict[tuple[int, int], RunStop | None] = {}  # by (statement node id, depth)
        self._bound_names: dict[int, frozenset[str]] = {}  # by module or function node
        self._rebound_attributes: dict[int, Counter[str]] = {}  # by module (_bound_otherwise)

    # -- training steps and loops -------------------------------------------------------------------------------
    @cached_property
    def training_steps(self) -> list[FunctionInfo]:
        """Functions that open a ``tf.GradientTape`` and update weights with ``apply_gradients`` or ``minimize``; not
        those that only differentiate with respect to inputs they watch (gradient ascent on an image to visualize a
        filter updates the image, not a model)."""
        steps = []
        for function in self.index.functions:
            calls = self.calls_in(function)
            if any(GRADIENT_TAPE in c.names for c in calls) and _updates_weights(function.node.body):
                sources, watched = self._gradient_sources(function)
                # Only inputs the tape watches (gradient ascent on an image to visualize a filter): no model trains.
                if not sources or not all(part is not None and function.module.node_code(part) in watched
                                          for part in sources):
                    steps.append(function)
        return steps

    def _gradient_sources(self, function: FunctionInfo) -> tuple[list[cst.BaseExpression | None], set[str]]:
        """What ``function`` differentiates with respect to: the parts of each ``tape.gradient(loss, sources)``
        (``a + b``, ``[a, b]``; through ``variables = ...`` in the function; None where it passes none), and the code
        of what its ``tape.watch(x)`` calls watch or it feeds a model (:meth:`_model_inputs`): inputs, not a model's
        weights (a tape records those untold)."""
        calls = self.calls_in(function)
        watched = {function.module.node_code(argument_value(c.node, "tensor", 0)) for c in calls
                   if m.matches(c.node.func, m.Attribute(attr=m.Name("watch"))) and c.node.args}
        watched |= self._model_inputs(function)
        sources: list[cst.BaseExpression | None] = []
        for call in calls:
            if not m.matches(call.node.func, m.Attribute(attr=m.Name("gradient"))):
                continue
            parts = _elements(argument_value(call.node, "sources", 1)) or [None]
            if len(parts) == 1 and isinstance(parts[0], cst.Name):
                parts = [part for value in _assigned_values(function.node.body, parts[0].value)
                         for part in _elements(value)] or parts
            sources += parts
        return sources, watched

    def _model_inputs(self, function: FunctionInfo) -> set[str]:
        """The code of what ``function`` feeds a model as its input (``extractor(image)``, ``extractor`` bound to a
        model's construction or a library architecture): style transfer and DeepDream optimize that image, not
        the model's weights."""
        found = set()
        for call in self.calls_in(function):
            func, args = call.node.func, call.node.args
            if not (isinstance(func, cst.Name) and args and args[0].keyword is None and args[0].star == ""):
                continue
            if self._bound_model(call.module, call.node, func.value) is not None:
                found.add(call.module.node_code(args[0].value))
        return found

    @cached_property
    def graph_trainings(self) -> list[CallSite]:
        """TensorFlow 1.x graph training: the first weight update (``optimizer.minimize(loss)``,
        ``apply_gradients``) of each function (or module top level, notebook cell) that builds one, in code that
        builds graphs for a session (TensorFlow 1.x's, or through ``tf.compat.v1``). A session runs the op it
        returns; the code that builds it trains."""
        found: dict[object, CallSite] = {}
        graph_mode = self._graph_mode_modules
        for site in self._graph_updates:
            if id(site.module) not in graph_mode or _never_read(site):
                continue
            key = (self._caller_key(site), _cell_of(site) if site.function is None else None)  # a cell's graph each
            first = found.get(key)
            # The first update a run with the defaults builds: `if MODE == "wgan":` RMSProp, else Adam.
            if first is None or self._skipped_site(first) and not self._skipped_site(site):
                found[key] = site
        return sorted(found.values(), key=self._source_order)

    def _skipped_site(self, site: CallSite) -> bool:
        return self.skipped_by_default(site.module, site.module.location(site.node).line) is not None

    @cached_property
    def _graph_updates(self) -> list[CallSite]:
        """Weight updates outside GradientTape steps (``train_op = optimizer.minimize(loss)``): graph training,
        TensorFlow 1.x's or through ``tf.compat.v1``."""
        steps = {id(step.node) for step in self.training_steps}
        updates = [site for site in self.index.calls if site.names & GRAPH_TRAIN_OPS or (
            m.matches(site.node, _UPDATE_CALL) and site.node.args
            and not (site.function is not None and id(site.function.node) in steps)
            and (all(n.startswith(TENSOR_APIS) for n in site.names) or (
                id(site.module) in self._graph_mode_modules and self._made_by_tensorflow(site))))]
        updates = [site for site in updates if not self._updates_inputs_only(site) and not self._taped_update(site)
                   and not self._external_optimization(site)]
        return updates + self._hand_written_updates({self._caller_key(site) for site in updates})

    def _external_optimization(self, update: CallSite) -> bool:
        """Whether ``update`` is an external optimizer's ``minimize(session)`` (``ScipyOptimizerInterface``'s
        L-BFGS, a PINN's second phase): a whole optimization run through the session from Python, not an update op
        the graph holds, and no optimizer a graph rewrite could wrap."""
        receiver = update.node.func.value if isinstance(update.node.func, cst.Attribute) else None
        if receiver is None:
            return False
        return any(isinstance(value, cst.Call) and module.qualified_names(value.func) & EXTERNAL_OPTIMIZERS
                   for module, _, value in self.assigned_values(update.module, update.function, receiver))

    def _taped_update(self, update: CallSite) -> bool:
        """Whether ``update`` runs in a loop whose body records its gradients on a GradientTape, there or in a
        function it calls (``grads = compute_grads(cfg)``, the tape in that helper): eager training, whatever
        TensorFlow 1.x API its module also calls (``tf.enable_eager_execution()`` in the script that runs it)."""
        loop = update.module.enclosing_loop(update.node)
        return loop is not None and any(
            GRADIENT_TAPE in site.names or any(id(f.node) in self._taping_functions for f in self.callees_of(site))
            for call in m.findall(loop.body, m.Call()) if (site := self._call_at.get(id(call))) is not None)

    @cached_property
    def _taping_functions(self) -> set[int]:
        """The repo functions that open a GradientTape (by node id)."""
        return {id(site.function.node) for site in self.index.calls_to(GRADIENT_TAPE) if site.function is not None}

    def _updates_inputs_only(self, update: CallSite) -> bool:
        """Whether a graph update (``z_optimizer.minimize(loss, var_list=[self.z_r])``) updates only variables its
        code makes by hand and feeds a network as its input (``G(self.z_r, reuse=True)``): a search for the latent
        vector that makes an image, through a generator trained elsewhere, trains no model."""
        # (by keyword: TensorFlow 1.x's `minimize(loss, global_step)` takes the step counter second)
        parts = _elements(argument_value(update.node, "var_list"))
        scope = update.function.node.body if update.function is not None else update.module.tree
        if not parts or None in parts:
            return False
        code = update.module.node_code
        made = {code(target.target) for assign in m.findall(scope, m.Assign(value=m.Call()))
                if (site := self._call_at.get(id(assign.value))) is not None and site.names & HAND_MADE_VARIABLES
                for target in assign.targets}
        fed = {code(call.args[0].value) for call in m.findall(scope, m.Call())  # to a network of the repo's
               if call.args and call.args[0].keyword is None and call is not update.node
               and (site := self._call_at.get(id(call))) is not None and self.callees_of(site)}
        return all(code(part) in made and code(part) in fed for part in parts)

    def symbolic_gradients(self, update: CallSite) -> CallSite | None:
        """The ``tf.gradients(loss, params)`` the code making a graph's ``update`` takes its gradients from, in the
        same function (or module level) before it: an optimizer wrapped for mixed precision scales the losses it
        differentiates itself, not those."""
        calls = self.calls_in(update.function) if update.function is not None else \
            self._module_level_calls.get(id(update.module), [])
        return next((site for site in calls if "tensorflow.gradients" in site.names
                     and self._not_below(site.module, site.node, update.node)), None)

    def _hand_written_updates(self, updating: set) -> list[CallSite]:
        """``tf.gradients(loss, params)`` in graph code where the repo writes its own optimizer (a function that
        assigns its variables' new values and groups the assignments: PixelCNN++'s ``adam_updates``, Glow's
        Adamax) and the code around it makes no optimizer's update (``updating``: the keys of the code that does):
        the session trains by running what that optimizer makes of those gradients. Not inside the optimizer."""
        gradients = [site for site in self.index.calls_to("tensorflow.gradients")
                     if id(site.module) in self._graph_mode_modules and self._caller_key(site) not in updating]
        # Most repos take no such gradients: the repo's functions are read for an optimizer only where one does.
        writers = {id(f.node) for f in self.index.functions if self._writes_updates(f)} if gradients else set()
        return [site for site in gradients if writers and not (
            site.function is not None and id(site.function.node) in writers) and self._applied_by(site, writers)]

    def _applied_by(self, gradients: CallSite, writers: set[int]) -> bool:
        """Whether the code around a ``tf.gradients`` call hands its result (the name it is bound to, or the list
        it is appended to) to one of the hand-written optimizers ``writers``, called by name or through a table
        (``{'adam': optim.adam, 'adamax': optim.adamax}[hps.optimizer](params, gs)``)."""
        parent = gradients.module.parent(gradients.module.parent(gradients.node))
        held = _assigned_names(self.index.assignment_of(gradients.node)) | (
            {parent.func.value.value} if m.matches(parent, m.Call(func=m.Attribute(value=m.Name(),
                                                                                  attr=m.Name("append")))) else set())
        calls = self.calls_in(gradients.function) if gradients.function is not None else \
            self._module_level_calls.get(id(gradients.module), [])
        for call in calls:
            if not any(m.findall(arg.value, m.Name(value=m.MatchIfTrue(held.__contains__))) for arg in call.node.args):
                continue
            callees = [f.node for f in self.callees_of(call)] + [f.node for f, _ in self.index.callees(
                self._passed_callable(call, None))]
            if any(id(node) in writers for node in callees):
                return True
        return False

    def _writes_updates(self, function: FunctionInfo) -> bool:
        """A hand-written optimizer: it assigns variables new values (``p.assign(p_t)``, ``tf.assign``) and groups
        the assignments into one op (``tf.group(*updates)``)."""
        calls = self.calls_in(function)
        assigns = [c for c in calls if method_name(c.node) in VARIABLE_ASSIGNMENTS or c.names & ASSIGN_OPS]
        return len(assigns) >= 2 and any("tensorflow.group" in c.names for c in calls)

    def _made_by_tensorflow(self, site: CallSite) -> bool:
        """Whether the receiver of ``site``'s method is a name bound to a TensorFlow or Keras object where it is
        called (``gen_opt = tf.train.AdamOptimizer(lr)``, at module level too, then ``gen_opt.apply_gradients``).
        Asked of graph-building code only: in eager code, a step's tape says what an update trains."""
        receiver = site.node.func.value if isinstance(site.node.func, cst.Attribute) else None
        bound = self.bound_call(site.module, site.node, receiver.value) if isinstance(receiver, cst.Name) else None
        return bound is not None and (self._makes_tensorflow_object(bound) or any(
            self._returns_tensorflow_objects(f) for f in self.callees_of(bound)))

    def _makes_tensorflow_object(self, site: CallSite) -> bool:
        """A call of TensorFlow or Keras API, or of a repo class extending it (BERT's ``AdamWeightDecayOptimizer(
        tf.train.Optimizer)``), or of a local name for one (``optimizer = tf.train.AdamOptimizer``, then
        ``d_optimizer = optimizer(self.d_lr)``, or of an attribute the class sets to one: ``self.optimizer =
        tf.train.AdamOptimizer`` by its update rule, then ``self.optimizer(learning_rate=lr)``)."""
        names = site.names
        assigned = self.assigned_values(site.module, site.function, site.node.func) if m.matches(
            site.node.func, m.Name() | m.Attribute(value=m.Name("self"), attr=m.Name())) and site.function is not None \
            else []
        if assigned:  # a name the function assigns is its own, whatever an import calls it
            if not all(isinstance(value, (cst.Name, cst.Attribute)) for _, _, value in assigned):
                return False  # one of its values is a call, a lambda...: unknown
            names = frozenset().union(*(module.qualified_names(value) for module, _, value in assigned))
        return bool(names) and all(n.startswith(TENSOR_APIS) for n in names) or any(
            base.startswith(TENSOR_APIS) for base in self._inherited_bases(names))

    def _returns_tensorflow_objects(self, function: FunctionInfo) -> bool:
        """Whether every value ``function`` returns is a TensorFlow or Keras object it makes there: a repo's
        ``config_optimizer(name, lr)`` returning ``tf.train.MomentumOptimizer(...)`` or ``AdamOptimizer(...)``."""
        returned = [r.value for r in m.findall(function.node.body, m.Return()) if r.value is not None
                    and self.enclosing_function(function.module, r) is function]
        return bool(returned) and all(isinstance(value, cst.Call) and (site := self._call_at.get(id(value))) is not None
                                      and self._makes_tensorflow_object(site) for value in returned)

    def graph_model_compute(self, training: CallSite) -> ModelCompute:
        """What the graph a TensorFlow 1.x training updates computes with: the layers built before the update by
        the function that makes it and by the functions that call it, up the chain (``train()`` builds the model,
        then asks ``optimize()``, whose helper ``make_optimizer()`` minimizes the loss), followed into the helpers
        they call. A graph exists before its update is made: what is built after (a sampler, an evaluation graph,
        another program a ``main()`` runs instead) is not what it trains."""
        def before(calls: list[CallSite], node: cst.Call) -> list[CallSite]:
            """``calls`` made before ``node``, or inside its arguments (``minimize(loss_of(self.unroll()))``)."""
            inside = {id(call) for call in m.findall(node, m.Call())} - {id(node)}
            return [c for c in calls if id(c.node) in inside or c.node is not node and self._not_below(
                c.module, c.node, node)]

        if training.function is None:
            calls = [c for c in self._module_level_calls.get(id(training.module), [])
                     if _cell_of(c) == _cell_of(training)]
            return self._with_dataset_images(self._tally(before(calls, training.node)), [training.module]).compute()
        calls = {id(c.node): c for c in before(self.calls_in(training.function), training.node)}
        modules = [training.module]
        seen, frontier = {id(training.function.node)}, [training.function]
        on_the_way: set[int] = set()
        for _ in range(CALL_DEPTH):
            callers = [caller for function in frontier for caller in self.callers_of(function)
                       if self._caller_key(caller) not in seen]
            seen |= {self._caller_key(caller) for caller in callers}
            on_the_way |= {id(caller.node) for caller in callers}
            for caller in callers:
                if caller.function is not None:
                    around = self.calls_in(caller.function)
                else:  # at a notebook's top level, its cell: the cells above it built other graphs
                    around = [c for c in self._module_level_calls.get(id(caller.module), [])
                              if _cell_of(c) == _cell_of(caller)]
                calls.update((id(c.node), c) for c in before(around, caller.node))
            modules += [caller.module for caller in callers]
            frontier = [caller.function for caller in callers if caller.function is not None]
        modules = list({id(module): module for module in modules}.values())
        # A call on the way to the update is not a layer of it: an earlier call of the same runner (`run(dfm)`,
        # `run(fm)`, `run(dnn)`) builds and trains a graph of its own.
        built = [c for key, c in calls.items() if key not in on_the_way]
        return self._with_dataset_images(self._tally(built), modules).compute()

    def module_compute(self, module: ModuleInfo) -> ModelCompute:
        """What all the code of ``module`` builds, its layers counted as a model's are: the most any graph it trains
        can compute with (a notebook builds its model in one cell and trains it in another)."""
        return self._tally([site for site in self.index.calls if site.module is module]).compute()

    def _convolves_embeddings(self, call: CallSite) -> bool:
        """Whether a convolution's input is a sequence's token embeddings (``tf.expand_dims(tf.nn.embedding_lookup(W,
        x), -1)``, followed through the names and ``self`` attributes that hold it): a text CNN's filter spans the
        whole embedding, so each is one dense layer at every token, not an image convolution."""
        # `tf.nn.conv2d(input, ...)`, or `tf.layers.conv2d(inputs=..., ...)`
        value = (argument_value(call.node, "input", 0) or argument_value(call.node, "inputs")) \
            if call.node.args else None
        module, scope = call.module, call.function
        for _ in range(EMBEDDING_HOPS):
            if isinstance(value, (cst.Name, cst.Attribute)):
                # an attribute of `self` set in another method (`self.input = tf.expand_dims(embedded, -1)` in
                # `add_embedding`): its value's names are that method's
                assigned = self.assigned_values(module, scope, value)
                # one value, or one rebound to itself reshaped or dropped out (`x = tf.nn.dropout(x, rate)`)
                kept = all(isinstance(later, cst.Call) and id(later) in self._call_at and
                           self._call_at[id(later)].names & EMBEDDING_KEEPING_OPS and later.args and
                           later.args[0].value.deep_equals(value) for _, _, later in assigned[1:])
                module, scope, value = assigned[0] if assigned and kept else (module, scope, None)
            elif isinstance(value, cst.Call) and id(value) in self._call_at:
                site = self._call_at[id(value)]
                if site.names & EMBEDDING_LOOKUPS:
                    return True
                callees = self.callees_of(site) if not site.names & EMBEDDING_KEEPING_OPS else []
                returned = [r.value for r in m.findall(callees[0].node.body, m.Return(value=m.DoNotCare()))] \
                    if len(callees) == 1 else []
                if len(returned) == 1:  # `cnn_input = self.get_embedding(x)`: what the helper returns
                    module, scope, value = callees[0].module, callees[0], returned[0]
                else:
                    value = argument_value(value, "input", 0) if site.names & EMBEDDING_KEEPING_OPS and value.args \
                        else None
            else:
                return False
        return False

    def _tally(self, calls: list[CallSite]) -> _LayerTally:
        tally = _LayerTally()
        self._count_layers(calls, 1, LAYER_DEPTH, tally, set())
        return tally

    def runs_in_step(self, function: FunctionInfo) -> bool:
        """Whether ``function`` runs as part of a training step: it is a training step, a method Keras traces into
        its train step (``train_step``, a model's or layer's ``call``), a function a training loop calls per
        iteration, or something one of those calls. Evaluation (``test_step``, callbacks' epoch hooks) is not."""
        return id(function.node) in self._step_code

    @cached_property
    def _step_code(self) -> set[int]:
        roots = {id(step.node) for step in self.training_steps}
        for base, methods in KERAS_TRACED.items():
            for cls_info in self.index.subclasses_of(base):
                roots |= {id(f.node) for f in self.index.methods_of(cls_info)
                          if f.name in methods and f.name in STEP_METHODS}
        for loop in self.training_loops:
            roots |= {id(f.node) for name in loop.step_names for f in self.index.functions_named(name)}
        roots |= {id(f.node) for f in self.compiled_losses}
        graph = self._call_graph
        return roots | {node for root in roots if root in graph for node in nx.descendants(graph, root)}

    def calls_in(self, function: FunctionInfo) -> list[CallSite]:
        """The calls ``function``'s own body makes (nested definitions' calls excluded: they run when called)."""
        return self._calls_by_function.get(id(function.node), [])

    @cached_property
    def _calls_by_function(self) -> dict[int, list[CallSite]]:
        by_function: dict[int, list[CallSite]] = {}
        for call in self.index.calls:
            if call.function is not None:
                by_function.setdefault(id(call.function.node), []).append(call)
        return by_function

    # -- compiled code ------------------------------------------------------------------------------------------
    def is_compiled(self, function: FunctionInfo | None) -> bool:
        """Whether ``function`` runs as a TensorFlow graph rather than eagerly from Python: it is compiled (see
        :attr:`compilations`) or defined inside a compiled function (it is traced with it)."""
        while function is not None:
            if id(function.node) in self._compiled:
                return True
            function = function.outer
        return False

    @cached_property
    def _compiled(self) -> set[int]:
        return {id(compiled.function.node) for compiled in self.compilations}

    @cached_property
    def compilations(self) -> list[Compilation]:
        """The repo functions compiled by ``tf.function`` or a wrapper of it (a library's, or a repo function that
        returns one's result): decorated, wrapped (``step = tf.function(train_step)``,
        ``tf.function(jit_compile=True)(train_step)``), or a method wrapped through its object
        (``self.step = tf.function(self.step)``, ``agent.train = common.function(agent.train)``)."""
        wrapper_functions = {id(site.function.node) for site in self._wrapper_calls.values() if site.function}
        found = [Compilation(f, None) for f in self.index.functions if f.decorators & TF_FUNCTION_WRAPPERS or any(
            id(w.node) in wrapper_functions for w in self.index.functions_named(*f.decorators))]
        for site in self.index.calls:
            wrapper = site.node.func if isinstance(site.node.func, cst.Call) else site.node
            wrapped = _wrapped_function(site.node)
            if id(wrapper) in self._wrapper_calls and wrapped is not None:
                found += [Compilation(f, site) for f in self._functions_meant(site, wrapped)]
        return found

    @cached_property
    def _wrapper_calls(self) -> dict[int, CallSite]:
        """Calls that return a compiled function, or a decorator that compiles one: of ``tf.function`` or a library
        wrapper of it, and of repo functions that return such a call (``return tf.function(*args, **kwargs)``,
        ``return tf.function(input_signature=signature)(function)``)."""
        found = {id(site.node): site for site in self.index.calls_to(*TF_FUNCTION_WRAPPERS)}
        pending = list(found.values())
        while pending:
            site = pending.pop()
            returned = m.Return(value=m.MatchIfTrue(lambda value: value is site.node) | m.Call(
                func=m.MatchIfTrue(lambda func: func is site.node)))
            if site.function is None or not m.findall(site.function.node.body, returned):
                continue
            for caller in self.callers_of(site.function):
                if id(caller.node) not in found:
                    found[id(caller.node)] = caller
                    pending.append(caller)
        return found

    def _functions_meant(self, site: CallSite, expr: cst.Name | cst.Attribute) -> list[FunctionInfo]:
        """The repo functions ``expr``, a function handed to the call ``site``, may be: by name; for ``self.step``,
        the class's method and its subclasses' overrides; for ``obj.step``, the method of the class ``obj`` was
        made from."""
        owner = _owner_class(site.function)
        found = self.index.functions_named(*site.module.names.resolve(expr, owner))
        if not isinstance(expr, cst.Attribute) or not isinstance(expr.value, cst.Name):
            return _visible_from(site.function, found)
        method = expr.attr.value
        if expr.value.value == "self" and owner is not None:
            found += [f for cls_info in self.index.subclasses_of(owner) for f in self.index.methods_of(cls_info)
                      if f.name == method]
        elif not found and (bound := self.bound_call(site.module, site.node, expr.value.value)) is not None:
            found = [f for cls_info in self._classes_constructed(bound)
                     for f in self._methods_of_class(cls_info, method)]
        return found

    def per_batch_calls(self, function: FunctionInfo) -> list[CallSite]:
        """Calls of ``function`` made once per iteration of a Python loop, eagerly (not from a compiled caller):
        from the loop's body, or from a function the loop calls per iteration (``trainer.train()``)."""
        return [c for c in self.callers_of(function) if self.iteration_loop(c) is not None
                and not (c.function is not None and self.is_compiled(c.function))]

    def sets_replay_priorities(self, module: ModuleInfo, read: cst.CSTNode, statement: cst.CSTNode) -> bool:
        """Whether a host read of a tensor (``read``, in ``statement``) becomes a prioritized replay's priorities:
        the statement hands it to a priority update (``buffer.update_priorities(indices, td.numpy())``), or binds a
        name such an update in the same function receives, or one named for them (``td_errors_all +=
        td_errors.numpy().tolist()``, returned to the loop that updates the buffer). The replay samples the next
        batch by them: the host needs them every update."""
        if any(_PRIORITY_NAME.search(call.func.attr.value) and _inside(module, read, call)
               for call in m.findall(statement, m.Call(func=m.Attribute()))):
            return True
        small = statement.body[0] if isinstance(statement, cst.SimpleStatementLine) else statement
        targets = [t.target for t in getattr(small, "targets", ())] + (
            [small.target] if isinstance(small, (cst.AugAssign, cst.AnnAssign)) else [])
        names = {t.value for t in targets if isinstance(t, cst.Name)}
        if any(_PRIORITY_NAME.search(name) for name in names):
            return True
        function = self.enclosing_function(module, statement)
        scope = function.node.body if function is not None else module.tree
        return bool(names) and any(
            _PRIORITY_NAME.search(call.func.attr.value) and any(
                isinstance(arg.value, cst.Name) and arg.value.value in names for arg in call.args)
            for call in m.findall(scope, m.Call(func=m.Attribute())))

    @staticmethod
    def leaves_its_loop(site: CallSite) -> bool:
        """Whether ``site`` sits in a block that ends its loop (``if done: train_step(...); break``): it runs once,
        on the loop's last iteration (an agent trained at the end of each episode), not every iteration."""
        module, node = site.module, site.node
        loop = module.enclosing_loop(node)
        while node is not None and node is not loop:
            if isinstance(node, cst.IndentedBlock) and node.body and m.matches(
                    node.body[-1], m.SimpleStatementLine(body=[m.ZeroOrMore(), m.Break()])):
                return True
            node = module.parent(node)
        return False

    def iteration_loop(self, site: CallSite, depth: int = CALL_DEPTH) -> tuple[cst.For | cst.While, ModuleInfo] | None:
        """The Python loop that makes ``site`` once per iteration: the loop around it, or the loop around a call of
        the function it is in (up to ``depth`` calls away). None in a compiled function: AutoGraph turns its loops
        into graph loops."""
        loop = site.module.enclosing_loop(site.node)
        if loop is not None:
            return None if _exits_after(site.module, site.node, loop) else (loop, site.module)
        function = site.function
        if function is None or depth == 0 or self.is_compiled(function):
            return None
        for caller in self.callers_of(function):
            found = self.iteration_loop(caller, depth - 1)
            if found is not None:
                return found
        return None

    def episode_before(self, site: CallSite, depth: int = CALL_DEPTH) -> CallSite | None:
        """Where the loop that makes ``site`` once per iteration (:meth:`iteration_loop`) first plays an episode: an
        environment's step in a loop nested in that loop's body, outside which ``site`` (or the call leading to it)
        is. Each iteration is then an episode of many steps and one update (REINFORCE, a GAIL discriminator trained
        after its rollouts). None otherwise, or where a way to ``site`` does not."""
        loop = site.module.enclosing_loop(site.node)
        if loop is not None:
            return None if _exits_after(site.module, site.node, loop) else next((
                step for nested in m.findall(loop.body, m.For() | m.While())
                if not _inside(site.module, site.node, nested)
                and (step := self._environment_step_in(nested.body, site.module)) is not None), None)
        function = site.function
        if function is None or depth == 0 or self.is_compiled(function):
            return None
        found = [self.episode_before(caller, depth - 1) for caller in self.callers_of(function)]
        return found[0] if found and all(found) else None

    def rollout_before(self, site: CallSite) -> CallSite | None:
        """Where ``site`` runs once per N iterations of a loop that steps an environment, N at least
        :data:`ROLLOUT_STEPS`: in the body of an ``if`` on an interval (``if step % update_timestep == 0:``, with
        ``update_timestep = 4000``) in that loop (PPO's update after each rollout). Each call then follows N
        environment steps. None otherwise, and where the source does not say N (an update every 4 steps is most of
        the work)."""
        loop = site.module.enclosing_loop(site.node)
        if loop is None:
            return None
        every = [self._integer(site.module, interval.right, None, site.function)
                 for branch, part in _branches_around(site.module, site.node, loop) if part is branch.body
                 for interval in m.findall(branch.test, m.BinaryOperation(operator=m.Modulo()))]
        if not any(n is not None and n >= ROLLOUT_STEPS for n in every):
            return None
        return self._environment_step_in(loop.body, site.module)

    def episode_in(self, step: FunctionInfo) -> CallSite | None:
        """Where a training step plays an episode itself before it updates: an environment's step in a loop of its
        own body that ends above its first GradientTape (a policy gradient's ``train_one_epoch``: thousands of
        environment steps, then one update). Each call then costs an episode more than an update."""
        module = step.module
        tapes = self.gradient_tapes(module, step.node.body)
        if not tapes:
            return None
        start = module.location(tapes[0][0]).line
        return next((played for loop in m.findall(step.node.body, m.For() | m.While())
                     if module.location(loop).end_line < start and self.enclosing_function(module, loop) is step
                     and (played := self._environment_step_in(loop.body, module)) is not None), None)

    def runs_compiled(self, function: FunctionInfo, depth: int = CALL_DEPTH) -> bool:
        """Whether ``function`` runs as a graph: it is compiled, or every call of it the repo shows (one at least)
        is made from code that runs compiled (it is traced into the caller's graph)."""
        if self.is_compiled(function):
            return True
        callers = self.callers_of(function)
        return depth > 0 and bool(callers) and all(
            c.function is not None and self.runs_compiled(c.function, depth - 1) for c in callers)

    def callees_of(self, site: CallSite) -> list[FunctionInfo]:
        return self._callees[id(site.node)]

    @cached_property
    def _callees(self) -> dict[int, list[FunctionInfo]]:
        """Every call's callees, found once: the call graph, callers and reach all ask for them."""
        self._call_graph_building = True
        try:
            return {id(site.node): self._find_callees(site) for site in self.index.calls}
        finally:
            self._call_graph_building = False

    def _find_callees(self, site: CallSite) -> list[FunctionInfo]:
        """The repo functions ``site`` calls: by name (imports, ``self.method``, constructors' ``__init__``); for
        ``obj.method(...)``, the method of the repo class ``obj`` was made from (``obj = Actor()``,
        ``self.actor = Actor()`` in the class); through a name bound to a wrapped function (``step =
        tf.function(train_step)``, ``self._train_fn = wrap()(self._train)``); the function a distribution strategy
        runs (``strategy.run(step_fn, args=(x,))``); else, on an object of unknown type, the one repo method of that
        name, if unique, or with no method of that name, the functions the repo's classes wrap under it
        (``self.train_step = tf.function(self._train_step)``). Through a dispatch table written in the code, what
        the table names (:meth:`_dispatched_callees`)."""
        dispatched = self._dispatched_callees(site)  # a dispatch table: the key picks, where the source sets it
        if dispatched:
            return dispatched
        found = self._callees_by_name(site)
        if isinstance(site.node.func, cst.Name):
            found = self._defined_last_before(site, _visible_from(site.function, found))
        if not found:
            found = self._base_methods(site) or self._wrapped_callees(site) or self._replica_functions(site) or \
                self._closure_callees(site) or self._alternative_construction(site) or self._aliased_callees(site) \
                or self._instance_called(site)
        else:
            found = found + self._overrides(site) + self._functions_handed_to_runners(site, found)
        if found or not isinstance(site.node.func, cst.Attribute) or any(
                n.startswith(("tensorflow.", "keras.", "numpy.", "builtins.")) for n in site.names):
            return found
        name = site.node.func.attr.value
        receivers = self._receiver_classes(site)
        typed = [m for cls_info in receivers for m in self._methods_of_class(cls_info, name)]
        if typed or receivers:  # a repo class without the method inherits it from a library (a model's set_weights)
            return typed
        if self._library_receiver(site):
            return []
        methods = self._methods_named.get(name, [])
        return methods if len(methods) == 1 else [] if methods else self._wrapped_attributes.get(name, [])

    def _dispatched_callees(self, site: CallSite) -> list[FunctionInfo]:
        """The functions a call through a dispatch table written in the code may run, each the table names:
        ``switch[args.algorithm](game, config)`` with ``switch = {"ALPHAZERO": learn_a0, "MUZERO": learn_m0}`` bound
        in the function or the module, or the literal itself (``{"train": train, "eval": evaluate}[mode]()``); only
        the one a key the source sets picks (``backbone = "mobilenetv1"``, then ``models[backbone](...)``)."""
        func = site.node.func
        if not isinstance(func, cst.Subscript):
            return []
        index = func.slice[0].slice if len(func.slice) == 1 else None
        key = self._value(site.module, index.value) if isinstance(index, cst.Index) else _UNKNOWN
        names = frozenset().union(*(module.qualified_names(value) for module, value in self._table_values(
            site.module, site.function, func.value, key) if isinstance(value, (cst.Name, cst.Attribute))))
        return [function for function, _ in self.index.callees(names)] if names else []

    def _table_values(self, module: ModuleInfo, scope: FunctionInfo | None, table: cst.BaseExpression,
                      key: object = _UNKNOWN) -> list[tuple[ModuleInfo, cst.BaseExpression]]:
        """The values of the dict ``table`` (read in ``scope``) stands for, each with the module it is written in: a
        dict literal, one assigned to the name there or in the module, or a module constant of another module
        (``Agents.MuZeroNetworks``); with a known ``key``, the value of the entry written with that key, where
        there is one. Syntax and constants only: the call graph asks while it is being built."""
        if isinstance(table, cst.Dict):
            written = [(module, table)]
        else:
            written = [(owner, value) for owner, _, value in self.assigned_values(module, scope, table)]
            constant = self.index.constant(module, table) if not written and isinstance(
                table, (cst.Name, cst.Attribute)) else None
            written += [(constant.module, constant.value)] if constant is not None else []
        entries = [(owner, element) for owner, value in written if isinstance(value, cst.Dict)
                   for element in value.elements if isinstance(element, cst.DictElement)]
        chosen = [(owner, element) for owner, element in entries
                  if key is not _UNKNOWN and key is not None and literal(element.key) == key]
        return [(owner, element.value) for owner, element in chosen or entries]

    def _callees_by_name(self, site: CallSite) -> list[FunctionInfo]:
        """The repo functions ``site``'s names refer to, by imports and qualified names alone."""
        return self.index.nearest(site.module, site.names, [f for f, _ in self.index.callees(site.names)],
                                  lambda f: f.module)

    def _defined_last_before(self, site: CallSite, functions: list[FunctionInfo]) -> list[FunctionInfo]:
        """Of the module's definitions a call's name may run, the one made last before the statement that holds the
        call: a notebook that redefines `ResNet` in a later cell trained the earlier one, through a call in the
        body of a function it defined before the later `ResNet` too (what a function's call runs is what the name
        holds when it is called: usually, in a notebook, what was defined by then)."""
        if len(functions) < 2 or any(f.module is not site.module for f in functions):
            return functions
        order = self._top_level_order(site.module)
        here = order[id(_top_level_statement(site.module, site.node))]
        placed = [(order[id(_top_level_statement(site.module, f.node))], f) for f in functions]
        before = [position for position, _ in placed if position < here]
        return [f for position, f in placed if position == max(before)] if before else functions

    def _top_level_order(self, module: ModuleInfo) -> dict[int, int]:
        """The module's top-level statements, by node id, numbered in source order."""
        if id(module) not in self._statement_orders:
            self._statement_orders[id(module)] = {id(s): i for i, s in enumerate(module.tree.body)}
        return self._statement_orders[id(module)]

    def _replica_functions(self, site: CallSite) -> list[FunctionInfo]:
        """The repo function a distribution strategy runs on each replica: ``strategy.run(step_fn, args=(x,))``
        (``experimental_run_v2``, ``extended.call_for_each_replica``) calls ``step_fn`` there and then. (A
        session's ``run`` takes fetches, not a function of the repo.)"""
        function = _replica_argument(site.node)
        return self._functions_meant(site, function) if isinstance(function, (cst.Name, cst.Attribute)) else []

    def _functions_handed_to_runners(self, site: CallSite, callees: list[FunctionInfo]) -> list[FunctionInfo]:
        """The repo functions ``site`` hands to a parameter that one of its ``callees`` runs and returns the result
        of, by calling it or through a distribution strategy: ``self.run(self.step_fn, batch)``, where ``def
        run(self, fn, *args)`` returns ``self.strategy.run(fn, args=args)``, runs ``step_fn`` and returns what it
        returns. (A builder that calls a block function it is handed, ``res_block(x, filters)``, returns a model of
        its own: the call graph has that edge through :meth:`_functions_passed`.)"""
        found: list[FunctionInfo] = []
        for callee in callees:
            runs = self._parameters_run(callee)
            passed = _arguments_by_parameter(site.node, _called_parameters(callee)) if runs else {}
            found += [function for parameter in runs if isinstance(passed.get(parameter), (cst.Name, cst.Attribute))
                      for function in self._functions_meant(site, passed[parameter])]
        return found

    def _parameters_run(self, function: FunctionInfo) -> frozenset[str]:
        """The parameters of ``function`` it returns the result of, calling them (``return fn(*args)``) or having a
        distribution strategy run them on each replica (``return strategy.run(fn, args=args)``)."""
        if id(function.node) not in self._runner_parameters:
            parameters = set(_called_parameters(function))
            calls = [site.node for site in self.calls_in(function) if isinstance(function.module.parent(site.node),
                                                                                   cst.Return)] if parameters else ()
            self._runner_parameters[id(function.node)] = frozenset(
                target.value for call in calls for target in (call.func, _replica_argument(call))
                if isinstance(target, cst.Name) and target.value in parameters)
        return self._runner_parameters[id(function.node)]

    @cached_property
    def _wrapped_attributes(self) -> dict[str, list[FunctionInfo]]:
        """The repo functions classes bind, wrapped, to each ``self`` attribute name (``self.train_step =
        tf.function(self._train_step)``)."""
        found: dict[str, list[FunctionInfo]] = {}
        for key, sites in self._bindings.items():
            if key[0] == "attr" and key[-1] in self._wrapping_names:
                found.setdefault(key[-1], []).extend(self._functions_wrapped(sites))
        return found

    def _wrapped_callees(self, site: CallSite) -> list[FunctionInfo]:
        """The repo functions a call runs through a name, or a ``self`` attribute, bound to a function handed to a
        wrapper (``tf.function(f)``, ``functools.partial(f, ...)``, ``decorator(...)(f)``)."""
        func = site.node.func
        on_self = isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.value.value == "self"
        name = func.value if isinstance(func, cst.Name) else func.attr.value if on_self else None
        if name not in self._wrapping_names:  # (most calls: a set lookup spares them the rest)
            return []
        if not on_self:
            bound = self.bound_call(site.module, site.node, name)
            wrappings = [bound] if bound is not None else []
        elif site.function is not None:
            wrappings = self._bindings.get(("attr", _owner_class(site.function), name), [])
        else:
            return []
        return self._functions_wrapped(wrappings)

    def _overrides(self, site: CallSite) -> list[FunctionInfo]:
        """For ``self.method(...)`` in a method, the overrides of ``method`` in the repo classes deriving from that
        method's class: on a subclass's object, the base class's ``train`` runs the subclass's ``_run_epoch``."""
        function = site.function
        if function is None or function.class_key is None or not m.matches(
                site.node.func, m.Attribute(value=m.Name("self"), attr=m.Name())):
            return []
        return [method for cls_info in self._subclasses.get(function.class_key, ())
                for method in self.index.methods_of(cls_info) if method.name == site.node.func.attr.value]

    @cached_property
    def _subclasses(self) -> dict[str, list[ClassInfo]]:
        """Each repo class's repo subclasses, direct or not, by key."""
        direct: dict[str, list[ClassInfo]] = {}
        for cls_info in self.index.classes:
            for base in self._classes_named(cls_info.bases):
                direct.setdefault(base.key, []).append(cls_info)
        found: dict[str, list[ClassInfo]] = {}
        for key in direct:
            seen: dict[str, ClassInfo] = {}
            stack = list(direct[key])
            while stack:
                cls_info = stack.pop()
                if cls_info.key not in seen and cls_info.key != key:
                    seen[cls_info.key] = cls_info
                    stack += direct.get(cls_info.key, [])
            found[key] = list(seen.values())
        return found

    def _base_methods(self, site: CallSite) -> list[FunctionInfo]:
        """``super().__init__(model, ...)`` in a method: that method of the class's repo bases."""
        function = site.function
        if function is None or function.class_key is None or not m.matches(
                site.node.func, m.Attribute(value=m.Call(func=m.Name("super")), attr=m.Name())):
            return []
        return [f for base in self._classes_named(self.index.class_of(function).bases)
                for f in self._methods_of_class(base, site.node.func.attr.value)]

    def _instance_called(self, site: CallSite) -> list[FunctionInfo]:
        """``pi(s)`` where ``pi = SoftmaxPolicy(func)``: the ``__call__`` of the repo class the name holds an instance
        of, or of its repo bases (a Keras layer's or model's ``__call__`` is Keras' own, which runs its ``call``)."""
        func = site.node.func
        bound = self.bound_call(site.module, site.node, func.value) if isinstance(func, cst.Name) else None
        return [method for cls_info in (self._classes_constructed(bound) if bound is not None else [])
                if cls_info.key not in self._keras_layer_classes
                for method in self._methods_of_class(cls_info, "__call__")]

    def _alternative_construction(self, site: CallSite) -> list[FunctionInfo]:
        """``cls(...)`` in a classmethod (``from_config``) constructs its class: the class's ``__init__``."""
        function = site.function
        if not m.matches(site.node.func, m.Name("cls")) or function is None or not _is_classmethod(function):
            return []
        return self._methods_of_class(self.index.class_of(function), "__init__")

    def _aliased_callees(self, site: CallSite) -> list[FunctionInfo]:
        """The repo functions a call runs through a name the code around it binds to one (``data_generator =
        yolo3_data_generator_wrapper``, in each branch that picks a model type), or, where that code binds none,
        the module's top level (``model_fn = HAN_model_1``, a global the function calls): every function so
        bound."""
        func = site.node.func
        if not isinstance(func, cst.Name):
            return []
        bound = self._aliases_in(site.module, site.function).get(func.value, {})
        if not bound and site.function is not None:
            bound = self._aliases_in(site.module, None).get(func.value, {})
        return [function for function, _ in self.index.callees(bound)]

    def _aliases_in(self, module: ModuleInfo, function: FunctionInfo | None) -> dict[str, dict[str, None]]:
        """The names the body of ``function`` (None: the module's top level) binds to another name or attribute,
        with what those resolve to: one by one, or a tuple of them (``train_step, test_step = train_one_step,
        test_one_step``)."""
        scope = function.node if function is not None else module.tree
        if id(scope) not in self._aliases:
            aliases: dict[str, dict[str, None]] = {}
            named = m.Name() | m.Attribute(value=m.Name())
            for assign in m.findall(scope, m.Assign(targets=[m.AssignTarget(m.Name() | m.Tuple())],
                                                    value=named | m.Tuple())):
                if self.enclosing_function(module, assign) is not function:
                    continue
                target, value = assign.targets[0].target, assign.value
                pairs = [(target, value)] if isinstance(target, cst.Name) else list(zip(
                    [e.value for e in target.elements], [e.value for e in value.elements])) if isinstance(
                    value, cst.Tuple) and len(target.elements) == len(value.elements) else []
                for name, bound in pairs:
                    if isinstance(name, cst.Name) and m.matches(bound, named):
                        aliases.setdefault(name.value, {}).update(dict.fromkeys(sorted(module.names.resolve(bound))))
            self._aliases[id(scope)] = aliases
        return self._aliases[id(scope)]

    def _closure_callees(self, site: CallSite) -> list[FunctionInfo]:
        """The function a call runs through a name bound to what a repo function returned, where that is a function
        it defines: ``network = model_generator(classes)``, then ``network(images)`` runs the ``def model(inputs)``
        that ``model_generator`` returns (TensorFlow 1.x official models' network factories); or the one at the
        name's place in a returned tuple (``train_step, test_step = make_steps(model)``); or called where it is
        returned: ``_res_conv(filters=64, kernel_size=7)(inputs)`` runs the ``def layer_fn(x)`` it defines."""
        func = site.node.func
        if isinstance(func, cst.Call):
            bound = self._call_at.get(id(func))
            return self._closures_returned(bound, None) if bound is not None else []
        if isinstance(func, cst.Name):
            return self._closures_bound(site.module, site.node, func.value)
        return []

    def _closures_bound(self, module: ModuleInfo, near: cst.CSTNode, name: str) -> list[FunctionInfo]:
        """The functions ``name`` holds where ``near`` is, bound to what a repo function returned, alone or at its
        place in a tuple (``dataset, decode = make_dataset_and_decoder(table)``)."""
        if name not in self._closure_names:
            return []
        bound = self.bound_call(module, near, name)
        return self._closures_returned(bound, _unpacked_position(self.index.assignment_of(bound.node), name)) \
            if bound is not None else []

    def _closures_returned(self, call: CallSite, place: int | None) -> list[FunctionInfo]:
        return [closure for factory, _ in self.index.callees(call.names)
                for closure in self._functions_returned.get(id(factory.node), {}).get(place, [])]

    @cached_property
    def _functions_returned(self) -> dict[int, dict[int | None, list[FunctionInfo]]]:
        """Functions a repo function returns by name, by the returning function's node, by their place in the tuple
        it returns (None: returned alone): those it defines (closures), and repo functions defined elsewhere that
        it names (``return train_disc, train_gen``, another pair under ``if use_mp:``)."""
        found: dict[int, dict[int | None, list[FunctionInfo]]] = {}
        defined: dict[int, dict[str, FunctionInfo]] = {}
        for function in self.index.functions:
            if function.outer is not None:
                defined.setdefault(id(function.outer.node), {})[function.name] = function
        for factory in self.index.functions:
            returned = _returned_names(factory.node.body)
            if not returned:
                continue
            local = set(_all_parameter_names(factory.node)) | {name for assign in m.findall(
                factory.node.body, m.AssignTarget()) for name in _bound_names(assign.target)}
            inner = defined.get(id(factory.node), {})
            for name, place in returned.items():
                functions = [inner[name]] if name in inner else [] if name in local else [
                    function for function, _ in self.index.callees(factory.module.names.resolve(cst.Name(name)))
                    if function.outer is None and function.class_key is None]
                if functions:
                    found.setdefault(id(factory.node), {}).setdefault(place, []).extend(functions)
        return found

    @cached_property
    def _functions_returned_alone(self) -> dict[int, list[FunctionInfo]]:
        """Functions a repo function returns alone (:attr:`_functions_returned`), by the returning function's node."""
        return {key: places[None] for key, places in self._functions_returned.items() if None in places}

    @cached_property
    def _closure_names(self) -> frozenset[str]:
        """Names bound somewhere to what a function returning functions returned (a filter, as for wrappers)."""
        return frozenset(name[-1] for name, sites in self._bindings.items() if any(
            id(factory.node) in self._functions_returned for site in sites
            for factory, _ in self.index.callees(site.names)))

    def _functions_wrapped(self, wrappings: Iterable[CallSite]) -> list[FunctionInfo]:
        """The repo functions handed first to the wrapper calls ``wrappings`` (``tf.function(step)``)."""
        return [f for bound in wrappings if (wrapped := _wrapped_function(bound.node)) is not None
                for f in self._functions_meant(bound, wrapped)]

    @cached_property
    def _wrapping_names(self) -> frozenset[str]:
        """Names and ``self`` attributes bound somewhere to a call handed a repo function first (a filter that
        spares the other calls a search for their binding)."""
        return frozenset(name[-1] for name, sites in self._bindings.items() if self._functions_wrapped(sites))

    def _receiver_classes(self, site: CallSite) -> list[ClassInfo]:
        """The repo classes the receiver of ``site``'s method call was made from, when the source shows it."""
        receiver = site.node.func.value
        if isinstance(receiver, cst.Name):
            bound = self.bound_call(site.module, site.node, receiver.value)
            if bound is None and site.function is not None and receiver.value in _called_parameters(site.function):
                return self._classes_given(site.function, receiver.value)
            return self._classes_constructed(bound) or self._classes_made_by(bound) if bound is not None else []
        if m.matches(receiver, m.Attribute(value=m.Name("self"), attr=m.Name())) and site.function is not None:
            return self._attribute_classes(_owner_class(site.function), receiver.attr.value, CALL_DEPTH)
        if m.matches(receiver, m.Attribute(value=m.Attribute(value=m.Name("self"), attr=m.Name()), attr=m.Name())) \
                and site.function is not None:  # `self.agent.pi.act(o)`: what the agent's class sets `pi` to
            return [found for holder in self._attribute_classes(_owner_class(site.function), receiver.value.attr.value,
                                                                CALL_DEPTH)
                    for found in self._attribute_classes(holder.key, receiver.attr.value, CALL_DEPTH)]
        return []

    def _library_receiver(self, site: CallSite) -> bool:
        """Whether the receiver of ``site``'s method call is an object a library made (``sess = tf.Session()``,
        ``with tf.Session() as sess:``, ``self.session = tf.Session()``): ``sess.run(...)`` is the library's method,
        not the one repo method of that name. By names alone: this is asked while the callees are being found."""
        receiver = site.node.func.value
        if isinstance(receiver, cst.Name):
            made = [bound] if (bound := self.bound_call(site.module, site.node, receiver.value)) is not None else \
                [self._call_at[id(item.item)] for item in _with_items_naming(site.module, site.node, receiver.value)
                 if id(item.item) in self._call_at]
        elif m.matches(receiver, m.Attribute(value=m.Name("self"), attr=m.Name())) and site.function is not None \
                and site.function.class_key is not None:
            made = self._bindings.get(("attr", site.function.class_key, receiver.attr.value), [])
        else:
            return False
        return bool(made) and all(_made_by_an_import(call) and not self._callees_by_name(call)
                                  and not self._classes_named(call.names) for call in made)

    def _classes_given(self, function: FunctionInfo, parameter: str) -> list[ClassInfo]:
        """The repo classes of the objects the calls naming ``function`` pass for its ``parameter``, made there
        (``data = BidirectionalLMDataset(...)``, then ``train(options, data)``). Callers by name only: this is asked
        while the callees of every call are being found."""
        found: dict[str, ClassInfo] = {}
        for caller in self._callers_by_name.get(id(function.node), ()):
            given = _arguments_by_parameter(caller.node, _called_parameters(function)).get(parameter)
            made = self._call_at.get(id(given)) if isinstance(given, cst.Call) else self.bound_call(
                caller.module, caller.node, given.value) if isinstance(given, cst.Name) else None
            if made is not None:
                found.update((c.key, c) for c in self._classes_constructed(made))
        return list(found.values())

    @cached_property
    def _callers_by_name(self) -> dict[int, list[CallSite]]:
        """The calls naming each repo function, by its node's id (imports and qualified names alone)."""
        callers: dict[int, list[CallSite]] = {}
        for site in self.index.calls:
            for callee in self._callees_by_name(site):
                callers.setdefault(id(callee.node), []).append(site)
        return callers

    def _classes_made_by(self, site: CallSite, depth: int = CALL_DEPTH) -> list[ClassInfo]:
        """The repo classes whose alternative constructor ``site`` calls: a classmethod that returns ``cls(...)``
        (``handler = TTSDataset.from_config(config)``), or a function whose every return is an object it makes of
        a repo class (``data = data_process.create_train_data(path)``, which returns the ``Data(...)`` a static
        method made), as Python imports it where ``site`` is written (:meth:`SourceIndex.nearest`)."""
        callees = [f for f, _ in self.index.callees(site.names)]
        if len(callees) > 1:
            callees = self.index.nearest(site.module, site.names, callees, lambda f: f.module)
        found: dict[str, ClassInfo] = {}
        for function in callees:
            if _is_classmethod(function):
                if m.findall(function.node.body, m.Return(value=m.Call(func=m.Name("cls")))):
                    found[function.class_key] = self.index.class_of(function)
                continue
            made = [self._classes_constructed(call) or (self._classes_made_by(call, depth - 1) if depth else [])
                    if call is not None else [] for call in self._calls_returned(function)]
            if made and all(made):
                found.update((c.key, c) for classes in made for c in classes)
        return list(found.values())

    def _calls_returned(self, function: FunctionInfo) -> list[CallSite | None]:
        """The call that makes what each ``return`` of ``function`` (not of a function inside it) returns: the call
        returned, or the call the returned name was bound to; None for a return of anything else."""
        if id(function.node) not in self._returned_calls:
            made: list[CallSite | None] = []
            for returned in m.findall(function.node.body, m.Return()):
                if self.enclosing_function(function.module, returned) is not function:
                    continue
                value = returned.value
                made.append(self._call_at.get(id(value)) if isinstance(value, cst.Call) else self.bound_call(
                    function.module, returned, value.value) if isinstance(value, cst.Name) else None)
            self._returned_calls[id(function.node)] = made
        return self._returned_calls[id(function.node)]

    def _attribute_classes(self, owner: str | None, attribute: str, depth: int) -> list[ClassInfo]:
        """The repo classes ``self.<attribute>`` of class ``owner`` was made from: a construction assigned to it in
        the class, or, for ``self.actor = actor`` in ``__init__``, what the class's constructions pass for
        ``actor`` (``Worker(Actor())``, ``Worker(self.actor)`` in a class that made one)."""
        bindings = self._bindings.get(("attr", owner, attribute), ())
        if not bindings and (owner, attribute) not in self._attribute_parameters and depth:
            # Set by a base class of the repo's (`self.neural_net = builder(game)` in the network's base class)
            return [c for base in self._repo_bases(owner) for c in self._attribute_classes(base, attribute, depth - 1)]
        found = [c for bound in bindings for c in self._classes_constructed(bound) or self._classes_handed(bound)]
        if found or depth == 0:
            return found
        for construction, passed in self._passed_for_attribute(owner, attribute):
            if isinstance(passed, cst.Name):
                bound = self.bound_call(construction.module, construction.node, passed.value)
                found += self._classes_constructed(bound) if bound is not None else []
            elif isinstance(passed, cst.Call) and id(passed) in self._call_at:  # `Coach(game, DefaultNet(game))`
                found += self._classes_constructed(self._call_at[id(passed)])
            elif m.matches(passed, m.Attribute(value=m.Name("self"), attr=m.Name())) and construction.function:
                found += self._attribute_classes(construction.function.class_key, passed.attr.value, depth - 1)
        return found

    def _repo_bases(self, owner: str | None) -> list[str]:
        """The keys of the repo classes class ``owner`` derives from directly."""
        cls_info = next((c for c in self.index.classes if c.key == owner), None) if owner is not None else None
        return [c.key for c in self.index.classes if cls_info is not None and c.key in cls_info.bases]

    def _classes_handed(self, site: CallSite) -> list[ClassInfo]:
        """For ``self.mcts = search_engine(game, net)`` in a constructor given the class ``search_engine``: the repo
        classes its constructions pass for it, a subclass's ``super().__init__(..., MuZeroMCTS, ...)`` included."""
        init = site.function
        if not isinstance(site.node.func, cst.Name) or init is None or init.name != "__init__" or \
                site.node.func.value not in init.params[1:]:
            return []
        found = []
        for construction, passed in self._passed_to_constructor(self.index.class_of(init), init,
                                                                site.node.func.value, CALL_DEPTH):
            # (`Agents.MuZeroNetworks[architecture]`: any class of a table of them)
            classes = self._table_values(construction.module, construction.function, passed.value) if isinstance(
                passed, cst.Subscript) else [(construction.module, passed)]
            found += [c for module, given in classes if isinstance(given, (cst.Name, cst.Attribute))
                      for c in self._classes_named(module.qualified_names(given))]
        return found

    def _passed_for_attribute(self, owner: str | None, attribute: str
                              ) -> list[tuple[CallSite, cst.BaseExpression]]:
        """For ``self.actor = actor`` in class ``owner``'s ``__init__``: each construction of the class, with what
        it passes for ``actor``."""
        parameter = self._attribute_parameters.get((owner, attribute))
        if parameter is None:
            return []
        init, name = parameter
        return self._passed_to_constructor(self.index.class_of(init), init, name, CALL_DEPTH)

    def _passed_to_constructor(self, cls_info: ClassInfo, init: FunctionInfo, name: str, depth: int
                               ) -> list[tuple[CallSite, cst.BaseExpression]]:
        """What each construction of ``cls_info`` that runs ``init`` passes for its parameter ``name``, with the call
        that passes it: a construction, or a subclass's constructor handing on its own parameter or a value of its
        own (``super().__init__(game, neural_net, args, MuZeroMCTS)``); a subclass with no constructor of its own is
        built with ``init``."""
        position = init.params.index(name) - 1
        found = [(construction, passed) for construction in self.constructions_of(cls_info)
                 if (passed := argument_value(construction.node, name, position)) is not None]
        for subclass in (c for c in self.index.classes if cls_info.key in c.bases) if depth else ():
            own = next((f for f in self.index.methods_of(subclass) if f.name == "__init__"), None)
            if own is None:
                found += self._passed_to_constructor(subclass, init, name, depth - 1)
                continue
            for handing in m.findall(own.node.body, _SUPER_INIT):
                handed = argument_value(handing, name, position)
                if isinstance(handed, cst.Name) and handed.value in own.params[1:]:
                    found += self._passed_to_constructor(subclass, own, handed.value, depth - 1)
                elif handed is not None and id(handing) in self._call_at:  # what the subclass itself hands on
                    found.append((self._call_at[id(handing)], handed))
        return found

    @cached_property
    def _attribute_parameters(self) -> dict[tuple[str, str], tuple[FunctionInfo, str]]:
        """``self.<attribute> = <parameter>`` in a class's ``__init__``: (class key, attribute) -> (the
        ``__init__``, the parameter)."""
        found = {}
        for init in self.index.functions:
            if init.name != "__init__" or init.class_key is None:
                continue
            for assign in m.findall(init.node.body, m.Assign(targets=[m.AssignTarget(
                    target=m.Attribute(value=m.Name("self"), attr=m.Name()))], value=m.Name())):
                if assign.value.value in init.params[1:]:
                    found[(init.class_key, assign.targets[0].target.attr.value)] = (init, assign.value.value)
        return found

    def _methods_of_class(self, cls_info: ClassInfo, name: str, depth: int = CALL_DEPTH) -> list[FunctionInfo]:
        """Method ``name`` of a repo class, or of its repo base classes."""
        own = [f for f in self.index.methods_of(cls_info) if f.name == name]
        if own or depth == 0:
            return own
        return [f for base in self._classes_named(cls_info.bases)
                for f in self._methods_of_class(base, name, depth - 1)]

    def callers_of(self, function: FunctionInfo) -> list[CallSite]:
        return self._callers.get(id(function.node), [])

    def _passed_for(self, function: FunctionInfo, parameter: str) -> list[tuple[CallSite, cst.BaseExpression]]:
        """What the calls of ``function`` that pass its ``parameter`` pass for it, with each call."""
        return [(caller, argument) for caller in self.callers_of(function)
                if (argument := _arguments_by_parameter(caller.node, _called_parameters(function)).get(parameter))
                is not None]

    @cached_property
    def _methods_named(self) -> dict[str, list[FunctionInfo]]:
        methods: dict[str, list[FunctionInfo]] = {}
        for function in self.index.functions:
            if function.class_key is not None and not function.name.startswith("__"):
                methods.setdefault(function.name, []).append(function)
        return methods

    @cached_property
    def _callers(self) -> dict[int, list[CallSite]]:
        callers: dict[int, list[CallSite]] = {}
        for site in self.index.calls:
            for callee in self.callees_of(site):
                callers.setdefault(id(callee.node), []).append(site)
        return callers

    # -- training reachability ---------------------------------------------------------------------------------
    def skipped_by_default(self, module: ModuleInfo, line: int, depth: int = CALL_DEPTH) -> SkippedBranch | None:
        """The outermost branch around module line ``line`` (or around every call of the function ``line`` is in)
        that a run with the defaults the source sets skips: its test reads only literals, constants and
        command-line flags' defaults (``if FLAGS.mode == "eager_tf":`` with ``mode`` defaulting to ``"fit"``;
        ``else:`` of ``if not DEBUG:``; ``if eager:`` with ``eager = False`` in a script). A test on a parameter decides
        nothing here: callers pass what they like. Nor does a default that stands in for the data: a branch that
        only makes a dataset where the default one makes none (``if FLAGS.use_data == "real":``, else random
        tensors; neither trains) reads the data a real run brings; without an ``else``, the default run makes no
        data there at all (``if curriculum_learn:`` with ``curriculum_learn = False``). Nor is the switch a run that
        trains turns on (:meth:`_training_switch`)."""
        if id(module) not in self._skipped_branches:
            found = []
            for branch in m.findall(module.tree, m.If()):
                value = self._truth(module, branch.test)
                skipped, taken = (branch.body, branch.orelse) if value is False else (branch.orelse, branch.body) \
                    if value else (None, None)
                stands_in = taken is not None and self._makes_dataset(skipped) and not self._makes_dataset(
                    taken) and not any(self.leads_to_training(call) for call in m.findall(branch, m.Call()))
                if skipped is not None and not stands_in and not self._training_switch(module, branch, skipped,
                                                                                       taken):
                    span = module.location(skipped)
                    found.append((span.line, span.end_line, SkippedBranch(
                        module.node_code(branch.test).strip(), module.location(branch.test), value)))
            self._skipped_branches[id(module)] = found
        lexical = next((branch for start, end, branch in self._skipped_branches[id(module)] if start <= line <= end),
                       None)
        if lexical is not None or depth == 0:
            return lexical
        # A function only called from such branches (`if eager: fit_one_epoch(...)`) is skipped with them.
        function = self._function_at(module, line)
        callers = self.callers_of(function) if function is not None else []
        skipped = [self.skipped_by_default(c.module, c.module.location(c.node).line, depth - 1) for c in callers]
        return skipped[0] if skipped and None not in skipped else None

    def stops_before(self, module: ModuleInfo, line: int, depth: int = CALL_DEPTH) -> RunStop | None:
        """A statement that raises whatever a run brings (see :mod:`.raising`) and that every run of module line
        ``line`` passes first: before it in a block around it (a training loop after ``model = Pnet()``, where
        ``Pnet`` uses a ``keras`` that its module never imports), or, a few calls up, before every call of the
        function it is in. Not in a notebook, whose cells a user runs in any order."""
        if module.notebook is not None:
            return None
        body: Sequence[cst.BaseStatement] = module.tree.body
        innermost: cst.FunctionDef | None = None
        while body:
            here = next((statement for statement in body
                         if module.location(statement).line <= line <= module.location(statement).end_line), None)
            if here is None:
                break
            for statement in body[:body.index(here)]:
                stop = self._raising_statement(module, statement, depth)
                if stop is not None:
                    return stop
            if isinstance(here, cst.FunctionDef):
                innermost = here
            elif line > module.location(here).line:  # its test, iterable or context runs before the line
                stop = self._raising_statement(module, here, depth)
                if stop is not None:
                    return stop
            body = next((block for block in inner_blocks(here) if block and module.location(
                block[0]).line <= line <= module.location(block[-1]).end_line), ())
        function = self.index.function_of(innermost) if innermost is not None and depth else None
        callers = self.callers_of(function) if function is not None else []
        # Every mention of the function is one of these calls (no callback passed by name, no framework hook).
        if not callers or _called_by_framework(function) or not self._only_called_by(function, callers):
            return None
        stops = [self.stops_before(c.module, c.module.location(c.node).line, depth - 1) for c in callers]
        return stops[0] if None not in stops else None

    def _raising_statement(self, module: ModuleInfo, statement: cst.BaseStatement, depth: int) -> RunStop | None:
        """What raises, whatever the data, where ``statement`` starts to run (a simple statement's values, a
        compound statement's test, iterable or context, and a ``with``'s body, which runs whenever its context does):
        a name bound nowhere in its module, or a call of a repo function that rejects its arguments or raises that
        way itself (``depth`` calls deep)."""
        key = (id(statement), depth)
        if key not in self._raising_statements:
            stop = next(
                (stop for expression in header_expressions(statement) for node in evaluated_every_time(expression)
                 if (stop := self._raising_name(module, node) if isinstance(node, cst.Name) else
                     self._raising_call(self._call_at[id(node)], depth)
                     if isinstance(node, cst.Call) and id(node) in self._call_at else None) is not None), None)
            for inner in inner_blocks(statement)[0] if stop is None and isinstance(statement, cst.With) else ():
                stop = self._raising_statement(module, inner, depth)
                if stop is not None or may_leave_early(inner):
                    break
            self._raising_statements[key] = stop
        return self._raising_statements[key]

    def _raising_name(self, module: ModuleInfo, name: cst.Name) -> RunStop | None:
        """NameError for ``name``, a value read: nothing in its module binds it, anywhere, though another repo module
        imports or defines it (an import left out: `keras` that the script imports, not the model file; a helper
        the script calls but never imports), and the module binds no names where the source does not show them (a
        star import, ``globals()``, ``exec``). A name no module binds is more likely code left out of a snippet
        than a run that fails."""
        known = module.names
        if name.value in DEFINED_EVERYWHERE or name.value in known.aliases or name.value in known.top_level or \
                known.star_imports or DYNAMIC_BINDING.search(module.code):
            return None
        elsewhere = [other for other in self._modules_binding.get(name.value, ()) if other is not module]
        if not elsewhere or name.value in self._names_set_on_imports:
            return None
        if name.value in self._names_bound_in(module.tree):
            return None
        return RunStop(f"`{name.value}` is bound in {elsewhere[0].path.as_posix()} but imported, assigned or defined "
                       f"nowhere in {module.path.name}, so reading it raises NameError", module.location(name))

    def _names_bound_in(self, code: cst.Module | cst.FunctionDef) -> frozenset[str]:
        """:func:`.raising.bound_names` of a module or a function, found once for each."""
        if id(code) not in self._bound_names:
            self._bound_names[id(code)] = bound_names(code)
        return self._bound_names[id(code)]

    @cached_property
    def _names_set_on_imports(self) -> frozenset[str]:
        """The names code sets on a module it imports (``config.args = args``): the module then holds a global no
        statement of its own binds."""
        setting = m.AssignTarget(target=m.Attribute(value=m.Name(), attr=m.Name()))
        return frozenset(target.target.attr.value for module in self.index.modules
                         for target in m.findall(module.tree, setting)
                         if target.target.value.value in module.names.aliases)

    @cached_property
    def _modules_binding(self) -> dict[str, list[ModuleInfo]]:
        """The modules whose code imports or defines each name at their top level (or imports it anywhere)."""
        found: dict[str, list[ModuleInfo]] = {}
        for module in self.index.modules:
            for name in module.names.top_level | set(module.names.aliases):
                found.setdefault(name, []).append(module)
        return found

    def _raising_call(self, site: CallSite, depth: int) -> RunStop | None:
        """TypeError where ``site`` calls a repo function (or constructs a repo class) by name with arguments its
        signature rejects (a class with no constructor of its own nor a base's takes no arguments); with ``depth``
        left, what raises that way when the function runs (:meth:`_raises_when_called`). Only where the call's name
        certainly means that one function: defined once, not rebound, not decorated (a decorator may change what the
        name takes); called by its name, or through the module that defines it (``transform.Normalize(...)``)."""
        func = site.node.func
        root = _root_name(func) if m.matches(func, m.Attribute(value=m.Name() | m.Attribute())) else None
        if root is not None and site.module.names.names_repo_module(root):
            name = root
        elif isinstance(func, cst.Name):
            name = func.value
        else:
            return None
        scope = site.function
        while scope is not None:  # a parameter or local of that name (`n_filters` passed in) is not the function
            if name in self._names_bound_in(scope.node):
                return None
            scope = scope.outer
        found = self._defined_last_before(site, _visible_from(site.function, self._callees_by_name(site)))
        if not found and site.node.args:
            return self._argument_to_plain_class(site, name)
        if len(found) != 1 or found[0].decorators:
            return None
        callee = found[0]
        constructor = callee.name == "__init__" and callee.class_key is not None
        if callee.class_key is not None and not constructor:
            return None
        defined = self.index.class_of(callee) if constructor else callee
        if constructor and (defined.node.decorators or defined.node.keywords or self._methods_of_class(
                defined, "__new__")) or not self._bound_once(defined.module, defined.name) or \
                not self._bound_once(site.module, name):
            return None
        call = brief(site.module.node_code(site.node))
        rejected = rejected_arguments(site.node, callee.node.params, bound=constructor)
        if rejected is not None:
            return RunStop(f"`{call}` raises TypeError: `{defined.name}()` {rejected}", site.module.location(site.node))
        inner = self._raises_when_called(callee, depth - 1) if depth else None
        return RunStop(f"`{call}` ({site.module.location(site.node).line_label}) raises in what it runs: "
                       f"{inner.cause}", inner.location) if inner is not None else None

    def _argument_to_plain_class(self, site: CallSite, name: str) -> RunStop | None:
        """TypeError where ``site`` passes arguments to a repo class, defined once, with no base, decorator,
        metaclass or constructor: Python's ``object`` takes none (``MinMaxNormalization(tf.uint16.max)`` for a
        class that only defines ``__call__``)."""
        classes = self._classes_constructed(site)
        if len(classes) != 1:
            return None
        cls_info = classes[0]
        node = cls_info.node
        if not all(m.matches(base.value, m.Name("object")) for base in node.bases) or node.decorators or \
                node.keywords or any(f.name in ("__init__", "__new__") for f in self.index.methods_of(cls_info)) or \
                not self._bound_once(cls_info.module, cls_info.name) or not self._bound_once(site.module, name):
            return None
        return RunStop(f"`{brief(site.module.node_code(site.node))}` raises TypeError: `{cls_info.name}()` takes no "
                       "arguments", site.module.location(site.node))

    def _raises_when_called(self, function: FunctionInfo, depth: int) -> RunStop | None:
        """What raises, whatever the arguments, each time ``function`` is called: a statement of its body that
        raises, with nothing before it that may return (a generator's body does not run when it is called)."""
        node = function.node
        if node.asynchronous is not None or is_generator(node) or not isinstance(node.body, cst.IndentedBlock):
            return None
        for statement in node.body.body:
            stop = self._raising_statement(function.module, statement, depth)
            if stop is not None or may_leave_early(statement):
                return stop
        return None

    def _bound_once(self, module: ModuleInfo, name: str) -> bool:
        """Whether ``module``'s top-level code binds ``name`` at most once (a ``def``, ``class``, import or
        assignment; in functions too, to be safe): a name bound again may hold something else when it is called."""
        binding = m.AssignTarget(target=m.Name(name)) | m.FunctionDef(name=m.Name(name)) | \
            m.ClassDef(name=m.Name(name)) | m.ImportAlias(asname=m.AsName(name=m.Name(name))) | \
            m.ImportAlias(name=m.Name(name), asname=None)
        return sum(len(m.findall(statement, binding)) for statement in module.tree.body) <= 1

    def _training_switch(self, module: ModuleInfo, branch: cst.If, skipped: cst.CSTNode,
                         taken: cst.CSTNode | None) -> bool:
        """Whether ``branch`` is how the program is told to train (``if args.train: model.train()``, the flag off by
        default): its skipped side trains (a training call, or a loop that writes a step inline), and neither its
        other side nor the statements beside it do (but another switch off by default, ``if args.eval:`` fitting a
        classifier on the codes). A run that trains takes it; an alternative way to train (``if FLAGS.eager:`` beside
        ``model.fit``) is no switch. Nor is the branch beside one that calls into a file advisor could not read
        (`RNN_Model(args, sess).train()` from a module with a syntax error): that one may well be how a run trains by
        default."""
        def runs_here(node: cst.CSTNode) -> bool:
            """Not in a function defined there: that one runs only where it is called."""
            def defined_in(n: cst.CSTNode) -> cst.FunctionDef | None:
                function = self.enclosing_function(module, n)
                return function.node if function is not None else None
            return defined_in(node) is defined_in(branch)

        def trains(block: cst.CSTNode | None) -> bool:
            if block is None:
                return False
            loops = m.findall(block, m.For() | m.While())
            return any(self.leads_to_training(call) for call in m.findall(block, m.Call())) or any(
                id(loop) in self._inline_step_loops and runs_here(loop) for loop in loops)

        def may_train(block: cst.CSTNode) -> bool:
            return trains(block) or any(self.index.in_unread_module(module, site.names) for call in m.findall(
                block, m.Call()) if (site := self._call_at.get(id(call))) is not None)

        def off(statement: cst.CSTNode) -> bool:  # another switch, off too (`if args.eval:`, evaluation that fits)
            return isinstance(statement, cst.If) and not statement.orelse and self._truth(module,
                                                                                         statement.test) is False

        def trains_by_default(block: cst.CSTNode | None) -> bool:
            """Down an ``elif`` chain, only the part the defaults take trains: `--ae_type` defaulting to none of
            `"AE"`, `"VAE"` and `"CVAE"` trains nothing, and each of them is a switch a run turns on."""
            if isinstance(block, cst.If):
                value = self._truth(module, block.test)
                return may_train(block) if value is None else trains_by_default(block.body if value else block.orelse)
            return block is not None and may_train(block.body if isinstance(block, cst.Else) else block)

        siblings = getattr(module.parent(branch), "body", ())
        return trains(skipped) and not trains_by_default(taken) and not any(
            trains(statement) for statement in (siblings if isinstance(siblings, Sequence) else ())
            if statement is not branch and not off(statement))

    @cached_property
    def _inline_step_loops(self) -> set[int]:
        """The loops that write a training step in their body (a GradientTape and a weight update): training no
        call stands for (``if TRAIN:`` around a notebook's only training loop)."""
        return {id(loop.node) for loop in self.training_loops if loop.inline_step}

    def _function_at(self, module: ModuleInfo, line: int) -> FunctionInfo | None:
        """The innermost repo function whose definition spans module line ``line``."""
        if id(module) not in self._function_spans:
            spans = [(module.location(f.node), f) for f in self.index.functions if f.module is module]
            self._function_spans[id(module)] = [(span.line, span.end_line, f) for span, f in spans]
        around = [(start, f) for start, end, f in self._function_spans[id(module)] if start <= line <= end]
        return max(around, key=lambda item: item[0])[1] if around else None

    def leads_to_training(self, call: cst.Call) -> bool:
        """A training call (``fit``, a step's call), or a call of a function that makes one (``fit_one_epoch``), or
        calls one that does (``cmd_finetune`` calling ``finetune``)."""
        site = self._call_at.get(id(call))
        return site is not None and (id(call) in self._training_call_nodes or any(
            id(f.node) in self._leading_to_training for f in self.callees_of(site)))

    @cached_property
    def _leading_to_training(self) -> set:
        """The code that makes a training call, and the code whose calls lead there (not those that build a model
        to evaluate it, nor making an object whose training method only code calls by name)."""
        graph = _without_evaluation(self._call_graph)
        return self._training_callers.union(*(nx.ancestors(graph, key) for key in self._training_callers
                                              if key in graph))

    @cached_property
    def _training_call_nodes(self) -> set[int]:
        return {id(site.node) for site in self._training_calls}

    def _makes_dataset(self, block: cst.CSTNode | None) -> bool:
        return block is not None and any(self._call_at[id(call)].names & ALL_SOURCES
                                         for call in m.findall(block, m.Call()) if id(call) in self._call_at)

    def reach(self, module: ModuleInfo, node: cst.CSTNode) -> Reach:
        """Whether a training run reaches ``node``: the code around it (its function, or its module's top level)
        is on the way from an entry point to training, or is called from there. :attr:`Reach.UNKNOWN` when the
        repo shows no training."""
        reached = self._reached
        if reached is None:
            return Reach.UNKNOWN
        if self._after_exit(module, node):
            return Reach.OTHER
        if isinstance(node, cst.FunctionDef):
            key = id(node)
        else:
            function = self.enclosing_function(module, node)
            key = id(function.node) if function is not None else ("module", id(module))
        return Reach.TRAINING if key in reached else Reach.OTHER

    @cached_property
    def _reached(self) -> set | None:
        """Code a training run reaches: what leads from an entry point to a training call, a training step or a loop
        that trains inline, and everything that code calls (data, model building, the step, callbacks). None when
        nothing trains."""
        graph = self._call_graph
        # A step or an inline loop in code named like evaluation (a few-shot model's `evaluate()`, fitting a head on
        # each test task) is an evaluation, however it computes: no anchor, nor are the calls of such a step.
        evaluations = {id(f.node) for f in self.index.functions if _named_like_evaluation(f.name)}
        steps = {id(step.node) for step in self.training_steps} - evaluations
        anchors = {self._caller_key(site) for site in self._training_calls if not (
            (callees := {id(f.node) for f in self.callees_of(site)}) and callees <= evaluations)}
        anchors |= steps
        # A module's self-test (`test_audio_generator()`, which its `__main__` runs, fitting a toy model on the
        # module's generator) checks the module: the training scripts that import it are what train.
        anchors -= {id(f.node) for f in self.index.functions if _is_test_function(f)}
        for loop in self.training_loops:  # a step written inline: the code around the loop trains
            if loop.inline_step:
                function = self.enclosing_function(loop.module, loop.node)
                if function is not None and id(function.node) in evaluations:
                    continue
                anchors.add(id(function.node) if function is not None else ("module", id(loop.module)))
        anchors |= {self._caller_key(site) for site in self._compiled_gradient_calls}
        if not anchors:
            return None
        # `model_fn(features, labels, ModeKeys.EVAL)` builds the model to evaluate it: no way to training.
        training_calls = _without_evaluation(graph)
        # Training code only dead code leads to (a model file's `test()` that nothing calls, a predict script's
        # `Model(is_training=False)`) trains in no run, and that dead code leads to no training either; unless all
        # training is like that (a library, whose users call it).
        starts = {anchor: self._starts(anchor, self._program_training_graph) for anchor in anchors}
        live_starts = {anchor: {start for start in found if not self._dead_start(start)}
                       for anchor, found in starts.items()}
        live = {anchor for anchor in anchors if live_starts[anchor] or not starts[anchor]}
        region = self._live_region(set().union(*live_starts.values())) if live else None
        # With no live way in, the repo is a library its users call; but not through scripts that fail to import.
        called = live or {anchor for anchor in anchors if not all(self._fails_to_start(s) for s in starts[anchor])}
        roots = set(called)
        for anchor in called:
            ancestors = nx.ancestors(training_calls, anchor)
            roots |= ancestors if region is None else ancestors & region
        # Instantiating a class reaches its methods, but not one named like evaluation that no code on the way calls,
        # nor one whose name the code calls only on objects of other classes.
        unused = evaluations | {id(f.node) for f in self.index.functions if f.class_key is not None
                                and not _called_by_framework(f) and self._called_only_on_others(f)}
        runs = nx.subgraph_view(graph, filter_edge=lambda caller, callee: not (
            callee in unused and graph.edges[caller, callee].get("maybe", False)))
        reached = set(roots)
        for root in roots:
            reached |= nx.descendants(runs, root)
        return reached

    @cached_property
    def _compiled_gradient_calls(self) -> list[CallSite]:
        """Calls of a compiled function that only computes gradients (``gradients, loss = train_step(model, x)``
        under ``@tf.function``), made in a loop that applies them (``optimizer.apply_gradients(zip(gradients,
        ...))``): that loop trains, though no one function both differentiates and updates."""
        helpers = {id(call.function.node): call.function for call in self.index.calls_to(GRADIENT_TAPE)
                   if call.function is not None and self.runs_compiled(call.function)
                   and not _updates_weights(call.function.node.body)}
        return [caller for helper in helpers.values() for caller in self.callers_of(helper)
                if (loop := caller.module.enclosing_loop(caller.node)) is not None and _updates_weights(loop.body)]

    def _run_of(self, key: int | tuple) -> set | None:
        """What the programs (scripts and notebooks: modules whose top-level code calls something) that reach
        the code ``key`` names run, following calls and imports; None when some way into that code starts elsewhere
        (a function no code is seen to call, a module that only defines things)."""
        starts = self._starts(key)
        if not starts or not all(self._is_program(start) for start in starts):
            return None
        return starts.union(*(self._program_run(start) for start in starts))

    def _program_run(self, program: int | tuple) -> set:
        """What the code ``program`` names (a module's top level, a function) runs, following calls and imports."""
        if program not in self._program_runs:
            self._program_runs[program] = nx.descendants(self._program_graph, program)
        return self._program_runs[program]

    def _starts(self, key: int | tuple, graph: nx.DiGraph | None = None) -> set:
        """Where the ways into the code ``key`` names start: the code no other repo code calls or imports (in
        ``graph``, by default the program graph)."""
        graph = self._program_graph if graph is None else graph
        return {node for node in nx.ancestors(graph, key) | {key} if graph.in_degree(node) == 0}

    @cached_property
    def _program_training_graph(self) -> nx.DiGraph:
        """The program graph without evaluation calls: the ways a run can take to training."""
        return _without_evaluation(self._program_graph)

    def _dead_start(self, start: int | tuple) -> bool:
        """Code where no run starts: a module that nothing imports and whose top level runs nothing, a test function
        nothing calls (a model file's ``test()``), a function no code names (a ``train_rpn()`` in the ``models.py`` a
        script imports for another model), a method no code names (a trainer's ``fit_generator_sim`` beside
        the ``fit_generator`` its scripts call), code only evaluation calls lead to, or a script of a library the
        repo keeps a copy of (its examples)."""
        if self._program_graph.in_degree(start) > 0:
            return True
        if isinstance(start, tuple):
            module = self._module_by_id[start[1]]
            return self._idle_module(start) or self._runs_none_of_its_code(module) or \
                self.failed_import(module, as_script=True) is not None
        function = self._function_by_id[start]
        return self._idle_module(("module", id(function.module))) or _is_test_function(function) or \
            self._runs_none_of_its_code(function.module) or \
            function.class_key is not None and not _called_by_framework(function) and (
                not self._named(function.name) or self._called_only_on_others(function)) \
            or self._plain_function(function) and not (
                self._named_in(function.module, function.name) if self._script_function(function)
                else self._named(function.name))

    def _called_only_on_others(self, method: FunctionInfo) -> bool:
        """Whether every mention of ``method``'s name is a definition, an import or a call that runs other classes'
        methods of that name, each call's object of a known class (a notebook's ``pinn.fit_custom(...)`` on the one
        PINN class it makes, beside nine others' ``fit_custom`` that no code calls)."""
        calls = self._method_calls.get(method.name, [])
        return bool(calls) and self._only_called_by(method, calls) and all(
            (callees := self.callees_of(site)) and method not in callees for site in calls)

    @cached_property
    def _method_calls(self) -> dict[str, list[CallSite]]:
        """The calls of an object's method (``obj.name(...)``), by the method's name."""
        calls: dict[str, list[CallSite]] = {}
        for site in self.index.calls:
            if isinstance(site.node.func, cst.Attribute):
                calls.setdefault(site.node.func.attr.value, []).append(site)
        return calls

    def _fails_to_start(self, start: int | tuple) -> bool:
        """Whether a run starting at ``start`` (a module, or a function) stops at an import that fails."""
        module = self._module_by_id[start[1]] if isinstance(start, tuple) else self._function_by_id[start].module
        return self.failed_import(module, as_script=isinstance(start, tuple)) is not None

    def _runs_none_of_its_code(self, module: ModuleInfo) -> bool:
        """Whether no run of ``module`` gets to its code: an import of it fails (:meth:`failed_import`), or it is
        part of a library or project the repo keeps a copy of (its examples and scripts are that project's)."""
        return self.failed_import(module) is not None or self.index.is_vendored(module) or \
            self.index.licensed_folder(module) in self._copied_projects

    @cached_property
    def _copied_projects(self) -> frozenset[Path]:
        """Folders holding a project of their own (a license file) whose modules the repo's code outside imports:
        a copy of another repo the project builds on (``src/keras_yolo3/``, with its MIT license, whose model its
        trainer imports). The copy's scripts (its own ``train.py``) are the other project's, not this one's."""
        found: set[Path] = set()
        for module in self.index.modules:
            folder = self.index.licensed_folder(module)
            if folder is not None and folder not in found and any(
                    folder not in importer.path.parents for importer in self._importers.get(id(module), [])):
                found.add(folder)
        return frozenset(found)

    def failed_import(self, module: ModuleInfo, as_script: bool = False) -> cst.ImportFrom | None:
        """A top-level ``from package.module import name`` of ``module`` that raises ImportError: the repo module it
        names neither defines nor imports ``name``, nor mentions it outside comments, nor do the repo modules it
        star-imports, and no repo module ``package.module.name`` exists (a quantization-aware trainer importing the
        ``compute_loss`` its model factory no longer has), or that module's own import fails. Nothing of
        ``module`` runs then. ``as_script``: also such an import in its ``if __name__ == "__main__":`` block, which
        stops a run of the module as a script (its functions may still run where other modules import them)."""
        key = (id(module), as_script)
        if key not in self._failed_imports:
            self._failed_imports[key] = None  # an import cycle reaching back here: not known to fail
            statements = [*module.tree.body, *(inner for block in module.tree.body if m.matches(block, MAIN_BLOCK)
                                               for inner in block.body.body)] if as_script else module.tree.body
            self._failed_imports[key] = next((
                statement for line in statements if isinstance(line, cst.SimpleStatementLine)
                for statement in line.body if isinstance(statement, cst.ImportFrom) and not statement.relative
                and statement.module is not None and not isinstance(statement.names, cst.ImportStar)
                and self._import_fails(module, statement)), None)
        return self._failed_imports[key]

    def _import_fails(self, importer: ModuleInfo, statement: cst.ImportFrom) -> bool:
        """``from package.module import name`` (in ``importer``) where ``package.module`` is exactly one repo module,
        one ``importer`` can import by that name (:func:`_importable_as`), that lacks ``name`` (mentions it only in
        comments, if at all), or whose own import fails."""
        source = cst.helpers.get_full_name_for_node(statement.module)
        owners = self.index.modules_imported_by(source)
        if len(owners) != 1 or not _importable_as(owners[0], source, importer):
            return False  # an installed package (`typing`, `bert`), a module elsewhere of that name, or copies
        if self.failed_import(owners[0]) is not None:
            return True
        exporters = self._star_exporters(owners[0])
        if exporters is None or any("__getattr__" in self._code_words(module) for module in exporters):
            return False
        # A package's folder may hold the name as a module the index never read (a Cython extension, a helper
        # that names no TensorFlow, a test file left out).
        package = owners[0].path.parent if owners[0].path.name == "__init__.py" else None
        return any(isinstance(alias.name, cst.Name) and not any(
            alias.name.value in self._code_words(module) for module in exporters)
            and self.index.modules_imported_by(f"{source}.{alias.name.value}") == owners
            and not (package is not None and self.index.holds_module(package / alias.name.value))
            for alias in statement.names)

    def _code_words(self, module: ModuleInfo) -> frozenset[str]:
        if id(module) not in self._words:
            self._words[id(module)] = _code_words(module.code)
        return self._words[id(module)]

    def _star_exporters(self, module: ModuleInfo, depth: int = STAR_DEPTH) -> list[ModuleInfo] | None:
        """The modules whose names ``module`` exports: itself and the repo modules it star-imports (``from
        utils.constant import *``), through theirs; None where one of those is no single repo module (an installed
        package's names are unknown) or they go deeper than ``depth``."""
        found = [module]
        for name in module.names.star_imports:
            owners = self.index.modules_imported_by(name)
            more = self._star_exporters(owners[0], depth - 1) if len(owners) == 1 and depth else None
            if more is None:
                return None
            found += more
        return found

    def _plain_function(self, function: FunctionInfo) -> bool:
        """A function only a call by its name runs: a module's undecorated top-level function, unless a command-line
        framework exposes it (every function of a module handing itself to ``fire.Fire``) and it runs when the user
        names it."""
        return function.class_key is None and function.outer is None and not function.decorators and not any(
            name.startswith(EXPOSING_CLIS) for site in self._module_level_calls.get(id(function.module), ())
            for name in site.names)

    def _script_function(self, function: FunctionInfo) -> bool:
        """A function of a script (or notebook) no repo module imports: only the script's own code can call it, not
        a user of a library. (A function of a module the repo imports, a ``models.py`` beside the ``train.py``
        that imports it, can be called by any repo code: it is dead when no code names it.)"""
        module = ("module", id(function.module))
        return self._is_program(module) and self._program_graph.in_degree(module) == 0

    def _live_region(self, starts: set) -> set:
        """The code the live ways into training pass through: what their ``starts`` reach, evaluation calls left
        out (one traversal from all of them)."""
        training = self._program_training_graph
        region = set(starts)
        pending = list(region)
        while pending:
            for successor in training.successors(pending.pop()):
                if successor not in region:
                    region.add(successor)
                    pending.append(successor)
        return region

    def _idle_module(self, key: tuple) -> bool:
        return self._program_graph.in_degree(key) == 0 and not self._is_program(key)

    @cached_property
    def _function_by_id(self) -> dict[int, FunctionInfo]:
        return {id(function.node): function for function in self.index.functions}

    def _is_program(self, key: int | tuple) -> bool:
        """A notebook, or a module whose top level calls something (a script: it does more than define)."""
        if not isinstance(key, tuple):
            return False
        return self._module_by_id[key[1]].notebook is not None or bool(self._module_level_calls.get(key[1]))

    @cached_property
    def _module_by_id(self) -> dict[int, ModuleInfo]:
        return {id(module): module for module in self.index.modules}

    @cached_property
    def _program_graph(self) -> nx.DiGraph:
        """The call graph plus an edge from each module's top level to each repo module it imports: importing a
        module runs its top-level code."""
        graph = self._call_graph.copy()
        for module in self.index.modules:
            for name in [*module.names.aliases.values(), *module.names.star_imports]:
                graph.add_edges_from((("module", id(module)), ("module", id(other))) for other in self.index.nearest(
                    module, [name], self.index.modules_imported_by(name), lambda imported: imported)
                    if other is not module)
        return graph

    @cached_property
    def _call_graph(self) -> nx.DiGraph:
        """Functions and modules' top-level code, an edge for each call between them; instantiating a repo class
        reaches all its methods (Keras calls `call`, callbacks' hooks, `train_step` by itself)."""
        graph = nx.DiGraph()
        graph.add_nodes_from(("module", id(module)) for module in self.index.modules)
        graph.add_nodes_from(id(function.node) for function in self.index.functions)
        methods_by_class: dict[str, list[FunctionInfo]] = {}
        for function in self.index.functions:
            if function.class_key is not None:
                methods_by_class.setdefault(function.class_key, []).append(function)

        def add(caller: int | tuple, callee: FunctionInfo, evaluation: bool, instantiated: bool = False) -> None:
            # One call in training mode makes the edge a way to training; one call by name makes it no longer
            # only maybe (see `_without_evaluation`).
            edge = graph.get_edge_data(caller, id(callee.node), {"evaluation": True, "maybe": True})
            graph.add_edge(caller, id(callee.node), evaluation=evaluation and edge["evaluation"],
                           maybe=instantiated and not _called_by_framework(callee) and edge["maybe"])

        # A method whose name no code mentions (a call, an attribute, a string) runs only if the framework calls it.
        for methods in methods_by_class.values():
            methods[:] = [method for method in methods if _called_by_framework(method) or self._named(method.name)]
        for site in self.index.calls:
            if self._after_exit(site.module, site.node):
                continue
            caller = self._caller_key(site)
            evaluation = self._evaluation_call(site)
            for callee in self.callees_of(site) + self._functions_passed(site):
                add(caller, callee, evaluation)
                if callee.name == "__init__" and callee.class_key is not None:
                    for method in methods_by_class.get(callee.class_key, ()):
                        add(caller, method, evaluation, instantiated=True)
            for cls_info in self._classes_constructed(site):
                for method in methods_by_class.get(cls_info.key, ()):
                    add(caller, method, evaluation, instantiated=True)
        for function in self.index.functions:  # a nested function runs when its outer function does
            if function.outer is not None:
                graph.add_edge(id(function.outer.node), id(function.node))
        return graph

    def _named(self, name: str) -> bool:
        """Whether the repo's code mentions ``name`` anywhere but where functions of that name are defined: a call
        or a reference (``self.fit_generator(...)``, ``callbacks=[self.on_step]``), a string (``getattr(model,
        "train")``), a comment after code; not a line that is only a comment, nor code after a script's ``exit()``
        (:meth:`_word_counts`)."""
        return self._word_counts[name] > self._definitions_named[name]

    def _named_in(self, module: ModuleInfo, name: str) -> bool:
        """Whether ``module``'s code names ``name`` as a bare name (a call, a reference, a string where the module
        looks names up: :data:`NAME_LOOKUP`), but where functions of that name are defined: ``tf.train.Checkpoint``
        names no ``train()`` of a script, nor does an experiment's name (``add_argument("--exp_name",
        default="ppo")``) its ``ppo()``, and only its own code can name that (:meth:`_named`'s lines and code)."""
        text = COMMENT_LINE.sub("", self._code_before_exit(module))
        bare = len(re.findall(rf"(?<![.\w]){re.escape(name)}\b(?!\s*=[^=])", text))
        if not NAME_LOOKUP.search(text):
            if id(module) not in self._module_strings:
                self._module_strings[id(module)] = Counter(
                    string.value.strip("'\"") for string in m.findall(module.tree, m.SimpleString()))
            bare -= self._module_strings[id(module)][name]
        return bare > sum(function.name == name for function in self.index.functions if function.module is module)

    @cached_property
    def _word_counts(self) -> Counter[str]:
        """How many times each word names something in the repo's code (one pass over its text, not one per name
        asked), lines that are only a comment left out, and prose in strings: commented-out code (``# grads =
        estimated_grads(data)``) calls nothing, nor does a help text ("restart training from a checkpoint"), nor a
        keyword given a value (``model(x, training=True)``)."""
        counts = Counter(word for module in self.index.modules
                         for word in NAMING_WORD.findall(COMMENT_LINE.sub("", self._code_before_exit(module))))
        # A string that is one word (`getattr(model, "train")`) may name a method; one with a space is prose.
        counts.subtract(word for module in self.index.modules if self._exit_line(module) is None
                        for string in m.findall(module.tree, m.SimpleString())
                        if any(space in string.value for space in " \n\t")
                        for word in NAMING_WORD.findall(string.value))
        return counts

    def _exit_line(self, module: ModuleInfo) -> int | None:
        """The line of a script's top-level ``exit()``/``sys.exit()``/``raise SystemExit`` that runs whatever
        happens: Python runs nothing below it, the definitions and the ``__main__`` block there included."""
        if id(module) not in self._exit_lines:
            ending = next((statement for statement in module.tree.body if module.notebook is None and isinstance(
                statement, cst.SimpleStatementLine) and any(_calls_exit(module, part) or m.matches(
                    part, m.Raise(exc=m.Name("SystemExit") | m.Call(func=m.Name("SystemExit"))))
                    for part in statement.body)), None)
            self._exit_lines[id(module)] = module.location(ending).line if ending is not None else None
        return self._exit_lines[id(module)]

    def _after_exit(self, module: ModuleInfo, node: cst.CSTNode) -> bool:
        line = self._exit_line(module)
        return line is not None and module.location(node).line > line

    def _code_before_exit(self, module: ModuleInfo) -> str:
        line = self._exit_line(module)
        return module.code if line is None else "\n".join(module.code.splitlines()[:line])

    def _only_called_by(self, function: FunctionInfo, callers: list[CallSite]) -> bool:
        """Whether every mention of ``function``'s name (for a constructor, its class's) is one of ``callers`` or a
        definition (no callback passed by name, no framework hook, no subclass): in the repo, or, for a function
        defined in another (a notebook's parser inside `load_data`, which other notebooks define too), in its own
        module, the only place that can name it."""
        name = self.index.class_of(function).name if _is_constructor(function) else function.name
        if self._named_only_by(name, len(callers)):
            return True
        module = function.module
        if self.enclosing_function(module, function.node.name) is None:
            # Modules that define their own code of the name and import none name that, not this function (a
            # notebook's `Discriminator` beside the package's).
            referring = [other for other in self.index.modules if other is module or name in other.names.aliases
                         or name not in self._names_defined_in(other)]
            imports = sum(1 for other in referring for bound, target in other.names.aliases.items()
                          if bound == name and target.rpartition(".")[2] == name and "." in target)
            return sum(self._module_words(other)[name] for other in referring) <= len(callers) + 1 + imports
        if any(c.module is not module for c in callers):
            return False
        definitions = sum(1 for f in self.index.functions if f.module is module and f.name == function.name)
        return self._module_words(module)[function.name] <= len(callers) + definitions

    def _module_words(self, module: ModuleInfo) -> Counter[str]:
        """The words naming something in ``module``'s code (:attr:`_word_counts`, for one module)."""
        if id(module) not in self._module_word_counts:
            self._module_word_counts[id(module)] = Counter(
                NAMING_WORD.findall(COMMENT_LINE.sub("", self._code_before_exit(module))))
        return self._module_word_counts[id(module)]

    def _names_defined_in(self, module: ModuleInfo) -> set[str]:
        """The names of the functions and classes ``module`` defines."""
        return self._module_definitions.get(id(module), set())

    @cached_property
    def _module_definitions(self) -> dict[int, set[str]]:
        found: dict[int, set[str]] = {}
        for definition in [*self.index.functions, *self.index.classes]:
            found.setdefault(id(definition.module), set()).add(definition.name)
        return found

    def _named_only_by(self, name: str, calls: int) -> bool:
        """Whether the repo's code mentions ``name`` no more than ``calls`` calls of it, its definitions and its
        imports by name do: nothing else refers to it (a callback passed by name, a registry, a subclass)."""
        return self._word_counts[name] <= calls + self._definitions_named[name] + self._names_imported[name]

    @cached_property
    def _names_imported(self) -> Counter[str]:
        """How many times each name is imported by name (``from performance import configure_optimizer``): a
        mention that calls nothing and passes nothing."""
        return Counter(bound for module in self.index.modules for bound, target in module.names.aliases.items()
                       if target.rpartition(".")[2] == bound and "." in target)

    @cached_property
    def _definitions_named(self) -> Counter[str]:
        return Counter(function.name for function in self.index.functions) + Counter(
            cls_info.name for cls_info in self.index.classes)

    def _evaluation_call(self, site: CallSite) -> bool:
        """A call that builds a model to evaluate or predict, where its training branch does not run: an Estimator
        model function called with ``tf.estimator.ModeKeys.EVAL``, or an Estimator made by code that trains nothing
        (``Estimator(model_fn=...).predict(...)``)."""
        if _makes_estimator(site.names):
            return self._caller_key(site) not in self._training_callers
        return any(isinstance(arg.value, cst.Attribute)
                   and site.module.qualified_names(arg.value) & ESTIMATOR_EVALUATION_MODES
                   for arg in site.node.args) or self._skips_training(site)

    def _skips_training(self, site: CallSite) -> bool:
        """A call that passes a false value (``False``, ``0``, ``None``, a flag defaulting to one) for the parameter
        whose falseness makes the callee return before it builds its training part: ``if not is_training: return``
        ahead of a TensorFlow 1.x model constructor's train op (a predict script builds the model that way)."""
        for callee in self.callees_of(site):
            if id(callee.node) not in self._training_guards:
                self._training_guards[id(callee.node)] = _training_guard(callee)
            guard = self._training_guards[id(callee.node)]
            if guard is None:
                continue
            given = _arguments_by_parameter(site.node, _called_parameters(callee)).get(
                guard, _parameter_default(callee, guard))
            if given is not None and self._truth(site.module, given) is False:
                return True
        return False

    def _truth(self, module: ModuleInfo, value: cst.BaseExpression, depth: int = CALL_DEPTH,
               passed: _Passed | None = None) -> bool | None:
        """Whether ``value`` is true as the source writes it (see :meth:`_value`); None when the source does not
        say."""
        known = self._value(module, value, depth, passed)
        return None if known is _UNKNOWN else bool(known)

    def _value(self, module: ModuleInfo, value: cst.BaseExpression, depth: int = CALL_DEPTH,
               passed: _Passed | None = None) -> object:
        """The Python value of ``value`` as the source writes it: a literal (``True``, ``None``, a number, a string,
        a tuple or list of those), a constant or a command-line flag's default that holds one, and ``not``,
        ``and``/``or`` and comparisons of those (``FLAGS.mode == "eager_tf"`` with ``mode`` defaulting to
        ``"fit"`` is False); ``_UNKNOWN`` when the source does not say. ``passed``: what one call gave the
        parameters of the function ``value`` is in (``residual=False``), which then decides them."""
        if isinstance(value, cst.Name) and value.value in ("True", "False", "None"):
            return {"True": True, "False": False, "None": None}[value.value]
        if isinstance(value, (cst.Integer, cst.Float, cst.SimpleString)):
            return value.evaluated_value
        if isinstance(value, (cst.Tuple, cst.List)):
            elements = [self._value(module, e.value, depth, passed) for e in value.elements
                        if isinstance(e, cst.Element)]
            return tuple(elements) if len(elements) == len(value.elements) and _UNKNOWN not in elements else _UNKNOWN
        if isinstance(value, cst.UnaryOperation) and isinstance(value.operator, cst.Not):
            known = self._value(module, value.expression, depth, passed)
            return _UNKNOWN if known is _UNKNOWN else not known
        if isinstance(value, cst.BooleanOperation):
            left = self._value(module, value.left, depth, passed)
            if left is not _UNKNOWN and bool(left) == isinstance(value.operator, cst.Or):
                return left  # `True or x`, `False and x`: the right side does not matter
            right = self._value(module, value.right, depth, passed)
            return _UNKNOWN if left is _UNKNOWN or right is _UNKNOWN else right
        if isinstance(value, cst.Comparison):
            return self._compared(module, value, depth, passed)
        if isinstance(value, cst.BinaryOperation) and isinstance(value.operator, tuple(ARITHMETIC)):
            left, right = (self._value(module, side, depth, passed) for side in (value.left, value.right))
            numbers = all(isinstance(side, (int, float)) and not isinstance(side, bool) for side in (left, right))
            result = ARITHMETIC[type(value.operator)](left, right) if numbers else None
            return _UNKNOWN if result is None else result
        if m.matches(value, m.Call(func=m.Name("str"), args=[m.Arg(keyword=None)])):
            known = self._value(module, value.args[0].value, depth, passed)
            return _UNKNOWN if known is _UNKNOWN else str(known)
        if m.matches(value, m.Call(func=m.Attribute(attr=m.Name("lower") | m.Name("upper") | m.Name("strip")),
                                   args=[])):
            # a flag normalized before it is compared: `str(args.model).lower() == "wrn"`
            known = self._value(module, value.func.value, depth, passed)
            return getattr(known, value.func.attr.value)() if isinstance(known, str) else _UNKNOWN
        if passed is not None and passed.function is not None and isinstance(value, cst.Name) and \
                value.value in passed.function.params:
            return self._passed_value(value.value, passed, depth) if depth else _UNKNOWN
        if isinstance(value, cst.Subscript):
            return self._dict_entry(module, value, depth, passed) if depth else _UNKNOWN
        bound = self.flag_default(module, value) if depth else None
        if bound is None and depth and isinstance(value, (cst.Name, cst.Attribute)):
            constant = self.index.constant(module, value)
            bound = (constant.module, constant.value) if constant is not None else None
        if bound is None and depth and m.matches(value, m.Attribute(value=m.Name("self"), attr=m.Name())):
            return self._instance_setting(module, value, depth)
        if bound is None and depth and isinstance(value, cst.Name):
            local = self._local_setting(module, value)
            bound = (module, local) if local is not None else None
            if bound is None:
                settings = [self._value(*setting, depth - 1) for setting in self._parameter_settings(module, value)]
                return settings[0] if settings and _UNKNOWN not in settings and all(
                    known == settings[0] for known in settings) else _UNKNOWN
        return self._value(*bound, depth - 1) if bound is not None else _UNKNOWN

    def _dict_entry(self, module: ModuleInfo, reading: cst.Subscript, depth: int, passed: _Passed | None) -> object:
        """What ``config["msg"]`` holds where ``config`` is a module's constant dict literal (a script's settings,
        ``config = {"msg": True, ...}``) that no code of the repo writes into: the value under that key."""
        index = reading.slice[0].slice if len(reading.slice) == 1 else None
        if not isinstance(index, cst.Index) or not isinstance(reading.value, (cst.Name, cst.Attribute)):
            return _UNKNOWN
        constant = self.index.constant(module, reading.value)
        if constant is None or not isinstance(constant.value, cst.Dict) or self.index.written_into(constant.name):
            return _UNKNOWN
        key = self._value(module, index.value, depth, passed)
        elements = constant.value.elements
        if key is _UNKNOWN or not all(isinstance(e, cst.DictElement) for e in elements):  # (`**defaults` may hold it)
            return _UNKNOWN
        held = [e.value for e in elements if self._value(constant.module, e.key, 0) == key]
        return self._value(constant.module, held[-1], depth - 1) if held else _UNKNOWN

    def _passed_value(self, parameter: str, passed: _Passed, depth: int) -> object:
        """What one call (``passed``) gives ``parameter`` of the function it calls: its argument, valued where the
        call is, else the parameter's default where the call passes no ``*args`` or ``**kwargs`` that may hold it.
        ``_UNKNOWN`` where the function binds the parameter again (as :meth:`_parameter_settings` reads it)."""
        function, site = passed.function, passed.site
        body = function.node.body
        if parameter in _bound_otherwise(body) or parameter in _loop_bindings(body):
            return _UNKNOWN
        if parameter in passed.arguments:
            return self._value(site.module, passed.arguments[parameter], depth - 1, _outer_of(passed))
        default = _parameter_default(function, parameter)
        if default is None or any(arg.star for arg in site.node.args):
            return _UNKNOWN
        return self._value(function.module, default, depth - 1)

    def _instance_setting(self, module: ModuleInfo, reading: cst.Attribute, depth: int) -> object:
        """What ``self.<attribute>``, read in a method, holds in every instance of its class (``RainbowAgent(
        use_categorical=True)``, then ``if self.use_categorical:``): the one value of each of the class's ``self.<
        attribute> = ...`` statements and of each construction's parameter they copy. Unknown unless the repo binds
        the attribute no other way (no ``+=``, no other object's, no ``setattr``), no repo class derives from the
        class, and its name is mentioned only to construct it (no registry that builds it by name)."""
        method = self.enclosing_function(module, reading)
        if self._call_graph_building or method is None or method.class_key is None or \
                self._bound_otherwise(reading.attr.value) or "setattr(" in method.module.code:
            return _UNKNOWN
        cls_info = self.index.class_of(method)
        if next(self.index.subclasses_of(cls_info.key), None) is not None or not self._named_only_by(
                cls_info.name, self._constructions_named[cls_info.name]):
            return _UNKNOWN
        held = [self._value(*setting, depth - 1)
                for setting in self._values_in_every_instance(cls_info, reading.attr.value) or ()]
        return held[0] if held and _UNKNOWN not in held and all(value == held[0] for value in held) else _UNKNOWN

    @cached_property
    def _constructions_named(self) -> Counter[str]:
        """How many calls construct a repo class of each name (several modules may define a class of one name)."""
        made: Counter[str] = Counter()
        for cls_info in self.index.classes:
            made[cls_info.name] += len(self.constructions_of(cls_info))
        return made

    def _bound_otherwise(self, attribute: str) -> bool:
        """Whether the repo binds an attribute of this name other than by ``self.<name> = value``: ``+=``, an
        annotated or unpacking assignment, a loop's target, another object's (``agent.epsilon = 0.1``). Only the
        modules whose code mentions it are read, each once."""
        mention = "." + attribute
        for module in self.index.modules:
            if mention in module.code:
                if id(module) not in self._rebound_attributes:
                    rebinding = _AttributeRebinding()
                    module.tree.visit(rebinding)
                    self._rebound_attributes[id(module)] = rebinding.bound
                if self._rebound_attributes[id(module)][attribute]:
                    return True
        return False

    def _parameter_settings(self, module: ModuleInfo, name: cst.Name) -> list[tuple[ModuleInfo, cst.BaseExpression]]:
        """What each call of the function around ``name``, a parameter it never binds again, passes for it, or its
        default where a call passes nothing (``use_float16=False``, which no caller of ``get_optimizer`` sets): empty
        unless every mention of the function is such a call and each says what it passes (no ``**kwargs``), and
        while the call graph is being built (a dispatch table's key read then)."""
        function = self.enclosing_function(module, name)
        if self._call_graph_building or function is None or name.value not in _called_parameters(function) or \
                _called_by_framework(function) and not _is_constructor(function):
            return []
        body = function.node.body
        callers = self.callers_of(function)
        if name.value in _bound_otherwise(body) or name.value in _loop_bindings(body) or not callers or \
                not self._only_called_by(function, callers):
            return []
        default = _parameter_default(function, name.value)
        settings = []
        for caller in callers:
            if any(arg.star for arg in caller.node.args):
                return []
            passed = _arguments_by_parameter(caller.node, _called_parameters(function)).get(name.value)
            if passed is None and default is None:
                return []
            settings.append((caller.module, passed) if passed is not None else (function.module, default))
        return settings

    def _local_setting(self, module: ModuleInfo, name: cst.Name) -> cst.BaseExpression | None:
        """What a name the function around ``name`` assigns once, and binds no other way, holds: a setting written
        in the function (``mixed_precision = False`` at the top of ``main()``, then ``if mixed_precision:``)."""
        function = self.enclosing_function(module, name)
        if function is None or name.value in function.params:
            return None
        if id(function.node) not in self._local_settings:
            body = function.node.body
            other = _bound_otherwise(body)
            self._local_settings[id(function.node)] = {
                bound: values[0] for bound, values in _loop_bindings(body).items()
                if len(values) == 1 and bound not in other}
        return self._local_settings[id(function.node)].get(name.value)

    def _compared(self, module: ModuleInfo, comparison: cst.Comparison, depth: int,
                  passed: _Passed | None = None) -> object:
        """A comparison chain of known values (``a == b``, ``a in (b, c)``, ``a is None``, ``0 < a <= b``)."""
        left = self._value(module, comparison.left, depth, passed)
        for target in comparison.comparisons:
            right = self._value(module, target.comparator, depth, passed)
            compare = _COMPARISONS.get(type(target.operator))
            if left is _UNKNOWN or right is _UNKNOWN or compare is None:
                return _UNKNOWN
            try:
                if not compare(left, right):
                    return False
            except TypeError:  # `"a" < 1`, `x in 3`: Python would raise; the source does not say
                return _UNKNOWN
            left = right
        return True

    @cached_property
    def _training_callers(self) -> set:
        return {self._caller_key(site) for site in self._training_calls}

    def _functions_passed(self, site: CallSite) -> list[FunctionInfo]:
        """Repo functions handed to a call to be called later: ``ds.map(decode)``, ``tf.function(step)``,
        ``LambdaCallback(on_batch_end=log)``, ``compile(metrics=[iou])``."""
        class_key = site.function.class_key if site.function is not None else None
        if site.names & APP_RUNNERS and not site.node.args:  # `tf.app.run()` calls the script's `main`
            return [f for f in self.index.functions_named(f"{site.module.name}.main") if f.module is site.module]
        compiles = id(site.node) in self._keras_compile_calls
        return [f for arg in site.node.args
                for value in (self._elements_handed(site, arg.value) if compiles else _elements(arg.value))
                if isinstance(value, (cst.Name, cst.Attribute))
                for f in _visible_from(site.function,
                                       self.index.functions_named(*site.module.names.resolve(value, class_key)))]

    @staticmethod
    def _elements_handed(site: CallSite, expression: cst.BaseExpression | None) -> list[cst.BaseExpression]:
        """What an argument of ``site`` hands over: the elements of a list, tuple or dict, written there or bound
        to a name in the same function first (``metrics = ["acc", iou]``, then ``compile(metrics=metrics)``)."""
        if isinstance(expression, cst.Name):
            scope = site.function.node.body if site.function is not None else site.module.tree
            literals = [value for value in _assigned_values(scope, expression.value)
                        if isinstance(value, (cst.List, cst.Tuple, cst.Dict, cst.BinaryOperation))]
            if literals:
                return [part for literal in literals for part in _elements(literal)]
        return _elements(expression)

    @cached_property
    def _keras_compile_calls(self) -> set[int]:
        return {id(call.node) for call in self.keras_compiles}

    def traced_by_dataset(self, function: FunctionInfo, depth: int = CALL_DEPTH) -> bool:
        """Whether a dataset stage calls ``function`` per element: handed to ``map``, or only ever called, a few
        calls deep, from a function that is. tf.data traces it into the pipeline's graph, once per pipeline built,
        with or without ``tf.function`` around it."""
        context = self.hot_functions.functions.get(id(function.node))
        if context is not None and context.in_dataset:
            return True
        callers = self.callers_of(function)
        return depth > 0 and bool(callers) and self._only_called_by(function, callers) and all(
            caller.function is not None and self.traced_by_dataset(caller.function, depth - 1) for caller in callers)

    def built_per_element(self, stage: Stage) -> bool:
        """The stage is in code a dataset stage runs per element (``interleave(read_file)``, a ``flat_map`` lambda,
        or what they call): part of an inner dataset that the outer pipeline consumes, not an input pipeline."""
        site = self._call_at.get(id(stage.node))
        context = self.hot_functions.context_of(site) if site is not None else None
        return context is not None and context.in_dataset

    def pipeline_reach(self, pipeline: Pipeline) -> Reach:
        """Whether a training run reaches the pipeline's consumer (:meth:`reach`); a loop that only looks at the
        elements (``for x in ds: print(x)``), a consumer that reads a few of them (``next(iter(ds))``, ``for x in
        ds.take(2): show(x)``), or a Keras callback's code (a plot of one example after each epoch: the batches
        `fit` trains on come from its own input), is no training, wherever it is."""
        sink = pipeline.sink
        if sink.role in ("loop", "iter") and self._inspects_only(sink) or _reads_a_few(pipeline) or \
                self._in_callback(sink.module, sink.node):
            return Reach.OTHER if self._reached is not None else Reach.UNKNOWN
        return self.reach(pipeline.sink.module, pipeline.sink.node)

    def pipelines_through(self, stage: Stage) -> list[Pipeline]:
        """The pipelines ``stage`` is part of, one per consumer its datasets reach; none where no code is seen
        reading them."""
        return self._pipelines_by_stage.get(id(stage.node), [])

    @cached_property
    def _pipelines_by_stage(self) -> dict[int, list[Pipeline]]:
        found: dict[int, list[Pipeline]] = {}
        for pipeline in self.index.pipelines():
            for stage in pipeline.stages:
                found.setdefault(id(stage.node), []).append(pipeline)
        return found

    @cached_property
    def _pipeline_sinks(self) -> set[int]:
        """Where each pipeline is consumed, by node id."""
        return {id(pipeline.sink.node) for pipeline in self.index.pipelines()}

    def _iterates_dataset(self, method: FunctionInfo) -> bool:
        """Whether an iterator class's ``method`` hands out a ``tf.data`` pipeline's elements: all it returns is an
        iterator over one (``def __iter__(self): return iter(self.ds)``), whose batches tf.data makes."""
        made = self._calls_returned(method)
        return bool(made) and all(site is not None and id(site.node) in self._pipeline_sinks for site in made)

    def cached_after(self, stage: Stage) -> Stage | None:
        """The ``.cache()`` that follows ``stage`` in every pipeline it is part of, if there is one: what ``stage``
        makes is kept, so it runs in the first epoch only."""
        found = []
        for pipeline in self.pipelines_through(stage):
            place = next(i for i, s in enumerate(pipeline.stages) if s.node is stage.node)
            found.append(next((s for s in pipeline.stages[place + 1:] if s.op == "cache"), None))
        return found[0] if found and None not in found else None

    def stage_reach(self, stage: Stage) -> Reach:
        """Whether a training run reaches the consumer of a pipeline ``stage`` is part of (the best reached of them,
        :meth:`pipeline_reach`); where no consumer is seen, the stage's own place."""
        reaches = [self.pipeline_reach(p) for p in self.pipelines_through(stage)]
        return min(reaches, key=lambda r: r.rank) if reaches else self.reach(stage.module, stage.node)

    def reads_host_variable(self, module: ModuleInfo, read: cst.Call) -> bool:
        """Whether ``read`` (``counter.numpy()``) reads an int32 ``tf.Variable``: ``step = tf.Variable(0)``, or
        held by a checkpoint (``ckpt = tf.train.Checkpoint(step=tf.Variable(0))`` ... ``ckpt.step``) or by ``self``.
        TensorFlow keeps int32 variables in host memory, so reading one does not wait for the device."""
        receiver = read.func.value if isinstance(read.func, cst.Attribute) else None
        if isinstance(receiver, cst.Name):
            bound = self.bound_call(module, read, receiver.value)
            return bound is not None and _int32_variable(bound)
        scope = self.enclosing_function(module, read)
        if m.matches(receiver, m.Attribute(value=m.Name("self"), attr=m.Name())) and scope is not None \
                and scope.class_key is not None:
            return any(_int32_variable(site) for site in self._bindings.get(
                ("attr", scope.class_key, receiver.attr.value), ()))
        return any(isinstance(value, cst.Call) and id(value) in self._call_at and
                   _int32_variable(self._call_at[id(value)]) for _, value in self._held_values(module, read, receiver))

    def _held_values(self, module: ModuleInfo, near: cst.CSTNode, expression: cst.BaseExpression | None
                     ) -> list[tuple[CallSite, cst.BaseExpression]]:
        """What ``holder.name`` holds where the holder was built by a call given ``name=value``
        (``tf.train.Checkpoint(step=tf.Variable(0), model=model)``), with that call: the holder named in the
        function, held by the instance (``self.checkpoint``), or renamed from it there (``ckpt = self.checkpoint``)."""
        if not m.matches(expression, m.Attribute(value=m.Name() | m.Attribute(value=m.Name("self"), attr=m.Name()),
                                                 attr=m.Name())):
            return []
        owner, attribute = expression.value, expression.attr.value
        scope = self.enclosing_function(module, near)
        in_class = scope is not None and scope.class_key is not None
        if isinstance(owner, cst.Attribute):
            held = [owner.attr.value] if in_class else []
            holders = []
        else:
            holders = [self.bound_call(module, near, owner.value)]
            held = [renamed.value.attr.value for renamed in m.findall(scope.node.body, m.Assign(
                targets=[m.AssignTarget(m.Name(owner.value))], value=m.Attribute(value=m.Name("self"),
                                                                                 attr=m.Name())))] if in_class else []
        holders += [site for name in held for site in self._bindings.get(("attr", scope.class_key, name), ())]
        return [(holder, value) for holder in holders
                if holder is not None and (value := argument_value(holder.node, attribute)) is not None]

    def tf1_call(self, modules: Iterable[ModuleInfo]) -> CallSite | None:
        """A call of TensorFlow 1.x-only API through ``tensorflow`` itself (``tf.Session()``, ``tf.placeholder``,
        ``tf.contrib``; not through ``tf.compat.v1``) in ``modules`` (those of a pipeline): that code runs on
        TensorFlow 1.x, whose tf.data neither parallelizes stateless maps nor injects a prefetch at run time (the
        defaults of TensorFlow 2). Only a call a training run reaches tells: a library's serving class beside the
        input helpers a TensorFlow 2 script uses does not."""
        return next((site for mod in modules for site in self._tf1_calls.get(id(mod), ())
                     if self.reach(site.module, site.node) is not Reach.OTHER), None)

    def tf1_eager_execution(self, module: ModuleInfo) -> CallSite | None:
        """``tf.enable_eager_execution()`` in ``module``: TensorFlow 1.x run eagerly (2.x spells it only under
        ``tf.compat.v1``, and runs eagerly anyway)."""
        return next((site for site in self.index.calls_to(*EAGER_EXECUTION) if site.module is module), None)

    def eager_turned_off(self, module: ModuleInfo) -> CallSite | None:
        """``tf.compat.v1.disable_eager_execution()`` (or ``disable_v2_behavior()``) in ``module``: TensorFlow 2 runs
        its code as TensorFlow 1.x did, Keras' loops included."""
        return next((site for site in self.index.calls_to(*EAGER_TURNED_OFF) if site.module is module), None)

    def legacy_keras_call(self, module: ModuleInfo) -> tuple[CallSite, str] | None:
        """A call of multi-backend Keras (``keras``, not ``tensorflow.keras``) with a Keras 1 argument
        (``Dense(output_dim=1024)``, ``fit(..., nb_epoch=10)``), which only Keras 2.3 and older still accept, and
        that argument: in ``module``, else in a repo module it imports (a training script's ``from model import *``
        of models written that way), whose program then runs there, with loops that slice arrays without
        TensorFlow 2's data adapters."""
        own = self._legacy_keras_calls.get(id(module))
        if own is not None:
            return own
        imported = [found for key in self._modules_imported_from(module)
                    if (found := self._legacy_keras_calls.get(key)) is not None]
        return min(imported, key=lambda found: self._source_order(found[0])) if imported else None

    @cached_property
    def _legacy_keras_calls(self) -> dict[int, tuple[CallSite, str]]:
        """Each module's first call of multi-backend Keras with a Keras 1 argument (:meth:`legacy_keras_call`): of
        its API, or a training method called on a model in a module that imports it (``model.fit_generator(gen(),
        nb_epoch=5)``, the model's class unknown to the index)."""
        found: dict[int, tuple[CallSite, str]] = {}
        for site in self.index.calls:
            if any(n.startswith("keras.") for n in site.names) or method_name(site.node) in KERAS_TRAINING_METHODS \
                    and any(target.startswith("keras.") for target in site.module.names.aliases.values()):
                embedding = any(n.endswith(".Embedding") for n in site.names)  # its `output_dim` is Keras 2's too
                keyword = next((arg.keyword.value for arg in site.node.args if arg.keyword is not None
                                and arg.keyword.value in KERAS_1_ARGUMENTS
                                and not (embedding and arg.keyword.value == "output_dim")), None)
                if keyword is not None:
                    found.setdefault(id(site.module), (site, keyword))
        return found

    def calls_tf1_api(self, module: ModuleInfo) -> bool:
        """Whether ``module`` calls TensorFlow 1.x-only API through ``tensorflow`` itself, not ``tf.compat.v1``:
        fixes spell TensorFlow 1.x's names there, ``tf.compat.v1``'s elsewhere."""
        return id(module) in self._tf1_calls

    @staticmethod
    def imports_compat_api(module: ModuleInfo) -> bool:
        """Whether ``module`` imports TensorFlow through ``tensorflow.compat.v1``/``v2``: code of the 1.x-to-2.x
        transition (``compat.v2`` with ``enable_v2_behavior()`` is TensorFlow 1.15 running as 2.x), which may run
        on a TensorFlow older than the API a fix writes."""
        return any(name.startswith("tensorflow.compat.") for name in module.names.aliases.values())

    def predates_tf24_names(self, modules: Iterable[ModuleInfo]) -> bool:
        """Whether code in ``modules`` may run on a TensorFlow without the names TensorFlow 2.4 added
        (``tf.data.AUTOTUNE``): it calls TensorFlow 1.x-only API, or the repo declares a TensorFlow older than 2.4
        for it. Fixes then write the older spellings (``tf.data.experimental.AUTOTUNE``)."""
        modules = list(modules)
        return self.tf1_call(modules) is not None or any(
            pin is not None and pin.predates(TF24) for pin in map(self.index.tensorflow_pin, modules))

    def tpu_training(self, modules: Iterable[ModuleInfo], run_by: CallSite | None = None) -> CallSite | None:
        """Where code beside ``modules`` (in their folders; theirs first) trains on a TPU: a ``TPUStrategy``, a
        ``TPUEstimator`` or TF1's ``keras_to_tpu_model``; with ``run_by``, only code the programs that run that
        call may run (a demo script beside a TPU trainer runs on no TPU), or its own module where no program is seen
        to run it. Their infeed runs the input pipeline ahead
        of the TPU step in a thread of its own, and TPUs compute in bfloat16, not float16."""
        modules = list(modules)
        nearby = [site for folder in dict.fromkeys(module.path.parent for module in modules)
                  for site in self._tpu_training.get(folder, ())]
        if run_by is not None:
            # Where no program is seen to run the call (a library), only its own module says where it runs: a
            # sibling task of a model-making library may be the one that trains on a TPU.
            run = self._run_of(self._caller_key(run_by))
            nearby = [site for site in nearby
                      if (self._caller_key(site) in run if run is not None else site.module is run_by.module)
                      and not self._runs_later(site, run_by)]
        return next((site for site in nearby if any(site.module is module for module in modules)),
                    nearby[0] if nearby else None)

    def _runs_later(self, site: CallSite, other: CallSite) -> bool:
        """Whether ``site`` runs after ``other``, both top-level code of one module: a notebook that makes a
        TPUStrategy in its last section trained its earlier models elsewhere."""
        if site.module is not other.module or site.function is not None or other.function is not None:
            return False
        order = self._top_level_order(site.module)
        return order[id(_top_level_statement(site.module, site.node))] > \
            order[id(_top_level_statement(other.module, other.node))]

    @cached_property
    def _tpu_training(self) -> dict[Path, list[CallSite]]:
        """By folder. Not a ``TPUEstimator(use_tpu=FLAGS.use_tpu)`` whose flag is off with the defaults the source
        sets (BERT's scripts): it then runs on the CPU or GPU, as an Estimator; nor a TPU strategy in a branch a run
        with those defaults skips (``elif FLAGS.strategy_type == "tpu":`` beside the default ``"mirror"``)."""
        found: dict[Path, list[CallSite]] = {}
        for site in self.index.calls:
            if any(n.startswith("tensorflow.") and n.endswith(TPU_TRAINING_SUFFIXES) for n in site.names):
                use_tpu = argument_value(site.node, "use_tpu", None)
                if (use_tpu is None or self._truth(site.module, use_tpu) is not False) and self.skipped_by_default(
                        site.module, site.module.location(site.node).line) is None:
                    found.setdefault(site.module.path.parent, []).append(site)
        return found

    @cached_property
    def _tf1_calls(self) -> dict[int, list[CallSite]]:
        """Each module's calls of TensorFlow 1.x-only API, by module; not those in a branch on which TensorFlow
        runs (``if tf.executing_eagerly(): ... else: tf.Session()``, a test of ``tf.__version__``): code written
        for both says nothing of the one it runs on."""
        found: dict[int, list[CallSite]] = {}
        for site in self.index.calls:
            if not any(n.startswith("tensorflow.") for n in site.names):
                continue
            dotted = cst.helpers.get_full_name_for_node(site.node.func)
            if dotted and tf1_only(site.module.names.imported(dotted) or "") and not self._in_version_branch(site) \
                    and id(site.module) not in self._tensorflow_2_modules:
                found.setdefault(id(site.module), []).append(site)
        return found

    @cached_property
    def _graph_mode_modules(self) -> set[int]:
        """Modules that build graphs a session runs: they call TensorFlow 1.x-only API (:attr:`_tf1_calls`), or
        the session API through ``tf.compat.v1`` (``tf.compat.v1.Session()``, ``placeholder``): an optimizer's
        ``minimize`` there builds a training op, not an eager update."""
        found = set(self._tf1_calls)
        eager: set[int] = set()
        for site in self.index.calls:
            if site.names & EAGER_EXECUTION:
                eager.add(id(site.module))
            elif id(site.module) not in found and (site.names & GRAPH_MODE_API or self._graph_only_compat_call(site)) \
                    and not self._in_version_branch(site):
                found.add(id(site.module))
        return found - eager

    @staticmethod
    def _graph_only_compat_call(site: CallSite) -> bool:
        """``tf.compat.v1.gradients(loss, tvars)``: TensorFlow 1.x API that raises under eager execution."""
        dotted = cst.helpers.get_full_name_for_node(site.node.func)
        imported = site.module.names.imported(dotted) if dotted else None
        return imported is not None and imported.startswith("tensorflow.compat.v1.") and bool(
            site.names & GRAPH_ONLY_COMPAT_API)

    @cached_property
    def _tensorflow_2_modules(self) -> set[int]:
        """Modules of programs that assert they run on TensorFlow 2 (``assert tf.__version__.startswith("2.")``):
        the asserting module and the repo modules it imports, two imports deep. A TensorFlow 1.x name there is a
        leftover of the 2.0 previews, not a TensorFlow 1.x program."""
        found: set[int] = set()
        pending = [module for module in self.index.modules if "__version__" in module.code and any(
            m.findall(statement.test, m.Name("__version__")) and any(
                str(string.evaluated_value).startswith("2") for string in m.findall(statement.test, m.SimpleString()))
            for statement in m.findall(module.tree, m.Assert()))]
        for _ in range(3):
            found |= {id(module) for module in pending}
            pending = [imported for module in pending
                       for name in [*module.names.aliases.values(), *module.names.star_imports]
                       for imported in self.index.nearest(module, [name], self.index.modules_imported_by(name),
                                                          lambda other: other)
                       if id(imported) not in found]
        return found

    @staticmethod
    def _in_version_branch(site: CallSite) -> bool:
        """Whether ``site`` is inside an ``if``/``else`` whose test asks which TensorFlow runs."""
        return any(part is not branch.test and m.findall(branch.test, m.Name(
            value=m.MatchIfTrue(lambda name: name in ("executing_eagerly", "__version__", "VERSION"))))
            for branch, part in _branches_around(site.module, site.node))

    def _inspects_only(self, sink: Sink) -> bool:
        """A loop over the dataset whose body only prints, plots or converts what it iterates over, or the loop
        that reads an iterator of it (``sess.run(next_element)``, ``next(it)``) and only collects what it reads
        (``self.images = np.concatenate(...)``: the data loaded into memory once): builtins, NumPy, matplotlib and
        the elements' own ``.numpy()``/``.shape``; any other call may train."""
        key = (id(sink.node), sink.role)  # many pipelines share a consumer (each way through a notebook's cells)
        if key not in self._inspecting_sinks:
            self._inspecting_sinks[key] = self._loop_inspects_only(sink.node) if sink.role == "loop" else \
                self._reads_to_inspect(sink)
        return self._inspecting_sinks[key]

    def _reads_to_inspect(self, sink: Sink) -> bool:
        """:meth:`_inspects_only` for an iterator's consumer: the loops reading it after it only collect and look."""
        scope = self.enclosing_function(sink.module, sink.node)
        body = scope.node.body if scope is not None else sink.module.tree
        if id(body) not in self._iterator_reading_loops:  # a notebook's top level holds many consumers
            self._iterator_reading_loops[id(body)] = [
                (sink.module.location(loop).line, loop) for loop in m.findall(body, m.For() | m.While())
                if m.findall(loop.body, _ITERATOR_READ)]
        start = sink.module.location(sink.node).line
        readers = [loop for line, loop in self._iterator_reading_loops[id(body)] if line > start]
        if not all(m.findall(loop.body, _COLLECTS) for loop in readers):
            return False
        return bool(readers) and not self._trains_around(sink.module, sink.node) and all(
            self._loop_inspects_only(loop, reads=True) for loop in readers)

    def _loop_inspects_only(self, loop: cst.CSTNode, reads: bool = False) -> bool:
        """The loop's calls are all inspection (:meth:`_inspects_only`), and with ``reads`` the reads of an
        iterator too."""
        calls = m.findall(loop.body, m.Call()) if isinstance(loop, (cst.For, cst.While)) else []
        if not calls:  # (a loop that only drains the dataset times it, or stands for code not shown)
            return False
        for call in calls:
            site = self._call_at.get(id(call))
            names = site.names if site is not None else frozenset()
            if names and all(n.startswith(INSPECTION_PREFIXES) for n in names):
                continue
            repo_code = site is not None and bool(self.callees_of(site))  # (a repo method of the name may train)
            if m.matches(call.func, m.Attribute(attr=m.Name(value=m.MatchIfTrue(INSPECTION_METHODS.__contains__)))) \
                    and not repo_code:
                continue
            if reads and m.matches(call, _ITERATOR_READ) and not repo_code:
                continue
            return False
        return True

    def feeds_training(self, pipeline: Pipeline) -> bool:
        """Whether ``pipeline`` feeds training: ``fit``, a distribution strategy, a function's return (out of
        sight, but named like training data), or a loop or iterator in code that runs training steps (a loop over
        a dataset that only predicts or prints does not)."""
        sink = pipeline.sink
        if sink.role not in ("loop", "iter"):
            return sink.is_training
        if _reads_a_few(pipeline):
            return False
        if sink.role == "loop" and any(loop.node is sink.node for loop in self.training_loops):
            return True
        if self._inspects_only(sink) or sink.role == "loop" and self._beside_training_loop(sink):
            return False
        return self._trains_around(sink.module, sink.node) or sink.role == "iter" and (any(
            self._trains_around(caller.module, caller.node)
            for method in self._held_iterator_readers(sink) for caller in self.callers_of(method))
            or self._iterated_in_training(sink))

    def _iterated_in_training(self, sink: Sink) -> bool:
        """Whether ``sink`` is the iterator a class's ``__iter__`` returns, and a training loop iterates an
        object of the class (``for images, labels in LmdbDataset(...)``)."""
        method = self.enclosing_function(sink.module, sink.node)
        if method is None or method.name != "__iter__" or method.class_key is None or not any(
                site is not None and site.node is sink.node for site in self._calls_returned(method)):
            return False
        for loop in self.training_loops:
            iterated = loop.node.iter if isinstance(loop.node, cst.For) else None
            if isinstance(iterated, cst.Name):
                iterated = getattr(self.bound_call(loop.module, loop.node, iterated.value), "node", None)
            site = self._call_at.get(id(iterated)) if isinstance(iterated, cst.Call) else None
            if site is not None and any(c.key == method.class_key for c in self._classes_constructed(site)):
                return True
        return False

    def _beside_training_loop(self, sink: Sink) -> bool:
        """A loop over a dataset that trains nothing, beside a loop of its function that trains over another
        dataset (``for batch in train_ds: train_step(batch)``, then ``for batch in val_ds: test_step(batch)``): the
        function trains on the other pipeline; this one is its evaluation pass."""
        scope = self.enclosing_function(sink.module, sink.node)
        module = sink.module
        beside = any(loop.node is not sink.node and loop.module is module and id(loop.node) in self._dataset_loops
                     and self.enclosing_function(module, loop.node) is scope
                     and not _inside(module, sink.node, loop.node) and not _inside(module, loop.node, sink.node)
                     for loop in self.training_loops)
        # (a Keras loop's `train_on_batch` over the other dataset trains too)
        return beside and not any(self._reaches_training(call, CALL_DEPTH) for call in m.findall(sink.node.body,
                                                                                                  m.Call()))

    @cached_property
    def _dataset_loops(self) -> set[int]:
        """The loops (by node id) that iterate a dataset."""
        return {id(pipeline.sink.node) for pipeline in self.index.pipelines() if pipeline.sink.role == "loop"}

    def evaluation_use(self, pipeline: Pipeline) -> str | None:
        """"validation", "evaluation" or "prediction" where ``pipeline`` feeds evaluation code, not the input every
        training step waits for: its consumer is (:attr:`Sink.evaluation_use`), it starts or ends in the branch only
        an evaluation takes (the ``else`` of ``if split == "train":`` in an input function serving both), a loop
        over it trains nothing beside the loop that trains (:meth:`_beside_training_loop`), or the
        function that builds it is named like evaluation code and its iterator or loop trains nothing
        (``eval_data_input_fn`` handing the dataset to a helper that makes its iterator), or is defined in one
        (the ``input_fn`` that ``predict_input_fn_builder`` returns)."""
        use = pipeline.sink.evaluation_use
        last = pipeline.last_stage
        if use is None and (any(_in_evaluation_branch(stage.module, stage.node) for stage in (pipeline.stages[0], last))
                            or pipeline.sink.role == "loop" and self._beside_training_loop(pipeline.sink)
                            or self._evaluation_iterator(pipeline.sink)):
            return "evaluation"
        if use is not None or pipeline.sink.role not in ("iter", "loop") or self.feeds_training(pipeline):
            return use
        # (or a function around it: the `input_fn` closure `predict_input_fn_builder` returns)
        builder, names = self.enclosing_function(last.module, last.node), []
        while builder is not None:
            names.append(builder.name)
            builder = builder.outer
        return "evaluation" if named_for_evaluation(names) else None

    def _evaluation_iterator(self, sink: Sink) -> bool:
        """An iterator bound to names of evaluation data only (``testA = iter(test_ds)``, read with ``next(testA)``
        every 500 steps to show the generator's progress): what the training loop takes from it is no step's input."""
        if sink.role != "iter" or not isinstance(sink.node, cst.Call):
            return False
        names = _assigned_names(self.index.assignment_of(sink.node))
        return bool(names) and all(_named_like_evaluation(name) for name in names)

    def _trains_around(self, module: ModuleInfo, node: cst.CSTNode) -> bool:
        """Whether the code around ``node`` (its function, or its module's top level) trains: it makes a training
        call or runs a training loop (a TensorFlow 1.x session's too)."""
        scope = self.enclosing_function(module, node)
        key = id(scope.node) if scope is not None else ("module", id(module))
        return any(self._caller_key(site) == key for site in self._training_calls) or any(
            (id(loop.node) if isinstance(loop.node, cst.FunctionDef) else None) == key
            or (self.enclosing_function(loop.module, loop.node) is scope and loop.module is module)
            for loop in [*self.training_loops, *self.session_loops])

    def _held_iterator_readers(self, sink: Sink) -> list[FunctionInfo]:
        """For an iterator an object holds (``self.data_iter = iter(dataset)``), the methods of its class that take
        the next element from it (``def next_batch(self): return next(self.data_iter)``): whoever calls them
        consumes the pipeline."""
        attribute = self._assigned_self_attribute(sink.module, sink.module.parent(sink.node))
        scope = self.enclosing_function(sink.module, sink.node)
        if attribute is None or scope is None or scope.class_key is None:
            return []
        reads = m.Call(func=m.Name("next"), args=[m.Arg(value=m.Attribute(value=m.Name("self"),
                                                                          attr=m.Name(attribute))), m.ZeroOrMore()])
        return [method for method in self.index.methods_of(self.index.class_of(scope))
                if m.findall(method.node.body, reads)]

    @cached_property
    def registered_callbacks(self) -> dict[int, bool]:
        """Callbacks a training call is given: ``id`` of the callback object's construction (a repo class, or
        Keras' own like ``TensorBoard(...)``) -> whether every run registers it. ``callbacks=[A(), b]`` registers
        its elements; a list built before the call registers what is appended to it, unconditionally unless the
        ``append`` sits under an ``if`` (``if args.log_every_batch: callbacks.append(Logger())``)."""
        registered: dict[int, bool] = {}
        for training in self._training_calls:
            self._register_callbacks(training, registered)
        return registered

    @cached_property
    def validated_callbacks(self) -> set[int]:
        """Callbacks a training call that validates is given (``fit(..., validation_data=val, callbacks=[...])``),
        by ``id`` of their construction: their evaluation hooks run in every epoch's validation pass."""
        registered: dict[int, bool] = {}
        for training in self._training_calls:
            if any(argument_value(training.node, keyword) is not None for keyword in VALIDATION_ARGUMENTS):
                self._register_callbacks(training, registered)
        return set(registered)

    def _register_callbacks(self, training: CallSite, registered: dict[int, bool]) -> None:
        """Record the callbacks ``training`` is given in ``registered`` (see :attr:`registered_callbacks`)."""
        value = argument_value(training.node, "callbacks")
        if isinstance(value, cst.Name):
            bound = self.bound_call(training.module, training.node, value.value)
            listed = self._list_bound_to(training, value.value)
            if bound is not None:
                registered[id(bound.node)] = True
            for element, unconditional in listed:
                self._register(training, element, unconditional, registered)
        elif isinstance(value, (cst.List, cst.Tuple)):
            for element in value.elements:
                self._register(training, element.value, True, registered)

    def registration(self, constructions: Iterable[CallSite]) -> Registration:
        """How the training registers the callback objects built at ``constructions``."""
        seen = [self.registered_callbacks[id(site.node)] for site in constructions
                if id(site.node) in self.registered_callbacks]
        if any(seen):
            return Registration.EVERY_RUN
        return Registration.SOME_RUNS if seen else Registration.NOT_SEEN

    def _register(self, training: CallSite, element: cst.BaseExpression, unconditional: bool,
                  registered: dict[int, bool]) -> None:
        if isinstance(element, cst.Name):
            bound = self.bound_call(training.module, training.node, element.value)
            element = bound.node if bound is not None else element
        if isinstance(element, cst.Call):
            registered[id(element)] = registered.get(id(element), False) or unconditional

    def _list_bound_to(self, training: CallSite, name: str) -> list[tuple[cst.BaseExpression, bool]]:
        """The elements of the list ``name`` holds in the training call's scope: its literal and what is appended,
        each with whether it is added on every run."""
        module, scope = training.module, self.enclosing_function(training.module, training.node)
        body = scope.node.body if scope is not None else module.tree
        found: list[tuple[cst.BaseExpression, bool]] = []
        for assign in m.findall(body, m.Assign(targets=[m.AssignTarget(m.Name(name))], value=m.List())):
            found += [(e.value, not self._under_condition(module, assign, body)) for e in assign.value.elements]
        append = m.Call(func=m.Attribute(value=m.Name(name), attr=m.Name("append") | m.Name("extend")))
        for call in m.findall(body, append):
            if call.args:
                added = call.args[0].value
                elements = [e.value for e in added.elements] if isinstance(added, (cst.List, cst.Tuple)) else [added]
                found += [(e, not self._under_condition(module, call, body)) for e in elements]
        return found

    @staticmethod
    def _under_condition(module: ModuleInfo, node: cst.CSTNode, body: cst.CSTNode) -> bool:
        parent = module.parent(node)
        while parent is not None and parent is not body:
            if isinstance(parent, (cst.If, cst.Try, cst.IfExp)):
                return True
            parent = module.parent(parent)
        return False

    def constructions_of(self, cls_info: ClassInfo) -> list[CallSite]:
        """Calls that instantiate ``cls_info`` (``Logger()``, ``callbacks.Logger(path)``)."""
        return self._constructions.get(id(cls_info), [])

    @cached_property
    def _constructions(self) -> dict[int, list[CallSite]]:
        """Every repo class's instantiations, found in one pass (receivers ask per call)."""
        found: dict[int, list[CallSite]] = {}
        for site in self.index.calls:
            for cls_info in {id(c): c for c in self._classes_constructed(site)}.values():
                found.setdefault(id(cls_info), []).append(site)
        return found

    @staticmethod
    def fixed_sleep_ms(function: FunctionInfo) -> float:
        """What ``function`` spends sleeping on every call: ``time.sleep(<number>)`` statements of its own body,
        not under a condition (a fixed cost its calls must show)."""
        total = 0.0
        body = function.node.body.body if isinstance(function.node.body, cst.IndentedBlock) else ()
        for statement in body:
            for call in m.findall(statement, m.Call(args=[m.Arg(m.Integer() | m.Float())])) \
                    if isinstance(statement, cst.SimpleStatementLine) else ():
                if "time.sleep" in function.module.qualified_names(call.func):
                    total += float(call.args[0].value.evaluated_value) * 1000.0
        return total

    def python_batches(self, loop: TrainingLoop) -> tuple[cst.CSTNode, list[FunctionInfo], bool] | None:
        """When a training loop takes its batches from Python (``for x, y in Batches():`` or ``x = next(batches)``
        with a repo iterator class or generator function, or a Keras ``ImageDataGenerator`` iterator): the
        expression that yields them, and what :meth:`batch_makers` says of it."""
        candidates: list[cst.BaseExpression] = []
        if isinstance(loop.node, (cst.For, cst.While)) and loop.loop is loop.node:
            if isinstance(loop.node, cst.For):
                iterable = loop.node.iter
                if isinstance(iterable, cst.Call) and m.matches(iterable.func, m.Name("enumerate")) and iterable.args:
                    iterable = iterable.args[0].value
                candidates.append(iterable)
            candidates += [call.args[0].value for call in m.findall(loop.node.body, _NEXT_CALL)]
        for candidate in candidates:
            makers = self.batch_makers(loop.module, loop.node, candidate)
            if makers is not None:
                return (candidate, *makers)
        return self._step_argument_batches(loop)

    def _step_argument_batches(self, loop: TrainingLoop) -> tuple[cst.CSTNode, list[FunctionInfo], bool] | None:
        """A batch handed to the step (or to ``train_on_batch``) straight from a repo function that reads it in
        Python each step (``train_step(self.im.get_batch(n).astype("float32"))``, ``x = loader.get_batch();
        train_step(x)``, ``batch = handler.get_batch(n); model.train_on_batch(batch["lr"], batch["hr"])``; for a step
        written in the loop, a name its tape block reads: ``content = content_ds.get_batch()``, then
        ``model(content)``): that function reads files or decodes images (noise drawn with NumPy is no batch worth
        a pipeline)."""
        made_per_step = {id(call) for call in m.findall(loop.node.body, m.Call())}
        # (a step written in the loop: each name its tape block reads)
        given = [(passed, near) for read, near in self._step_inputs(loop)
                 for passed in (m.findall(read, m.Name()) if isinstance(near, cst.With) else [read])]
        for passed, near in given:
            value = passed
            while isinstance(value, cst.Subscript):  # `batch["lr"]`: an item of what the call made
                value = value.value
            if isinstance(value, cst.Name):  # bound in the loop: made every step (not a dataset made once)
                bound = self.bound_call(loop.module, near, value.value)
                value = bound.node if bound is not None and id(bound.node) in made_per_step else value
            # `get_batch(n).astype("float32")`: the batch is what the inner call makes
            while m.matches(value, m.Call(func=m.Attribute(value=m.Call()))) and id(value) in self._call_at \
                    and not self.callees_of(self._call_at[id(value)]):
                value = value.func.value
            site = self._call_at.get(id(value)) if isinstance(value, cst.Call) else None
            makers = [f for f in self.callees_of(site) if self.reading_work(MappedFunction(f.node.body, f.module,
                                                                                           f))] if site else []
            if makers:  # reported where the step's call is given the batch, or for a step in the loop, where made
                return (site.node if isinstance(near, cst.With) else passed), makers, False
        return None

    def host_processed_batches(self, loop: TrainingLoop) -> tuple[cst.Call, FunctionInfo, cst.CSTNode] | None:
        """A batch the loop takes from its input (a ``tf.data`` pipeline), handed each step to a repo function that
        copies it to the host and works through it one element at a time in Python before the step can use it
        (``x, y = preprocessor.convert2idx(batch)``, whose body tokenizes ``[tokenize(s.numpy().decode()) for s in
        data]``): the call, the function and its loop over the elements (:func:`_element_loop`). However the
        pipeline prefetches, that work runs in one thread between two steps."""
        if not isinstance(loop.node, cst.For) or not loop.inputs:
            return None
        for assignment in m.findall(loop.node.body, m.Assign(value=m.Call())):
            site = self._call_at.get(id(assignment.value))
            if site is None or not any(_root_name(arg.value) in loop.inputs for arg in site.node.args):
                continue
            if not self._feeds_step(loop, {name for target in assignment.targets
                                           for name in _bound_names(target.target)}):
                continue
            for function in self.callees_of(site):
                element_loop = None if self.is_compiled(function) else _element_loop(function)
                if element_loop is not None:
                    return site.node, function, element_loop
        return None

    def _feeds_step(self, loop: TrainingLoop, names: set[str]) -> bool:
        """Whether the loop's step reads one of ``names`` (:meth:`_step_inputs`)."""
        return any(name.value in names for read, _ in self._step_inputs(loop) for name in m.findall(read, m.Name()))

    def _step_inputs(self, loop: TrainingLoop) -> list[tuple[cst.CSTNode, cst.CSTNode]]:
        """What the loop's step reads, each with where: the arguments of the calls of its step function and of
        ``train_on_batch`` (with the call), or, for a step written in the loop, its ``with`` blocks (its
        ``GradientTape``'s, with the block itself)."""
        found: list[tuple[cst.CSTNode, cst.CSTNode]] = [
            (arg.value, call) for call in m.findall(loop.node.body, m.Call())
            if loop.calls_step(call, self._names_of(call)) or any(call is c for c in loop.batch_trainings)
            for arg in call.args]
        if loop.inline_step:
            found += [(block, block) for block in m.findall(loop.node.body, m.With())]
        return found

    @cached_property
    def python_fed_trainings(self) -> list[tuple[CallSite, cst.BaseExpression, list[FunctionInfo], bool]]:
        """Keras training calls fed by Python (``fit_generator(data_generator(...))``, ``fit(train_sequence)`` with a
        repo ``keras.utils.Sequence``): the call, the argument that yields the batches, and what
        :meth:`batch_makers` says of it."""
        found = []
        for site in self._training_calls:
            if not (isinstance(site.node.func, cst.Attribute) and site.node.func.attr.value in KERAS_FITS):
                continue
            fed = argument_value(site.node, "generator", 0) or argument_value(site.node, "x", 0)
            makers = self.batch_makers(site.module, site.node, fed) if fed is not None else None
            if makers is not None:
                found.append((site, fed, *makers))
        return found

    def batch_makers(self, module: ModuleInfo, near: cst.CSTNode, expression: cst.BaseExpression,
                     depth: int = BUILDER_DEPTH) -> tuple[list[FunctionInfo], bool] | None:
        """When ``expression`` (read where ``near`` is) hands out batches made by Python: the repo functions that
        make each batch (a generator function; an iterator's ``__next__``/``__iter__`` or a ``Sequence``'s
        ``__getitem__``, inherited ones too), and whether they are Keras' image generators that read or augment
        images on the host (:meth:`_reads_or_augments`; a Keras iterator that does neither makes no function's
        batches: ``[], False``). Followed through names bound to calls, attributes of ``self`` its methods set, and
        through repo functions that return the iterator (``return data_generator(...)``, ``return train_generator,
        val_generator``); None otherwise."""
        position = None
        if m.matches(expression, m.Attribute(value=m.Name("self"), attr=m.Name())) and depth:
            # `self.train_generator`, made in another method (`self.train_generator = None` first, as a placeholder)
            for owner, _, value in self.assigned_values(module, self.enclosing_function(module, near), expression):
                found = self.batch_makers(owner, value, value, depth - 1) if isinstance(value, cst.Call) else None
                if found is not None:
                    return found
            return None
        if isinstance(expression, cst.Name):
            bound = self.bound_call(module, near, expression.value)
            if bound is None:
                return self._batch_makers_passed(module, near, expression.value, depth)
            position = _unpacked_position(self.index.assignment_of(bound.node), expression.value)
            expression = bound.node
        site = self._call_at.get(id(expression)) if isinstance(expression, cst.Call) else None
        if site is None:
            return None
        if site.names & ITERATOR_WRAPPERS and site.node.args and depth:  # `iter(train_generator)`: its batches
            return self.batch_makers(site.module, site.node, site.node.args[0].value, depth - 1)
        if "builtins.zip" in site.names and depth:  # `zip(image_generator, mask_generator)`: both make each batch
            found = [made for arg in site.node.args if not arg.star and (
                made := self.batch_makers(site.module, site.node, arg.value, depth - 1)) is not None]
            return ([f for makers, _ in found for f in makers], any(works for _, works in found)) if found else None
        if self._is_keras_image_iterator(site):
            return [], self._reads_or_augments(site)
        classes = self._classes_constructed(site)
        makers = [method for cls_info in classes for method in self._methods_of_hierarchy(cls_info)
                  if method.name in BATCH_METHODS and not self._iterates_dataset(method)]
        makers += list({id(generator.node): generator for maker in makers for generator in self._generators_held(maker)
                        if generator not in makers}.values())
        generators = [f for f in self.callees_of(site) if m.findall(f.node.body, m.Yield())]
        generators += self._overrides_called(site, generators)
        if makers or generators:
            # A generator that passes on a Keras image iterator's batches reads and augments images all the same,
            # whether it makes the iterator or is handed it (`crop_generator(train_iterator, size)`).
            handed = [found for generator in generators if depth
                      for found in self._iterated_arguments(site, generator, depth - 1)]
            return makers + generators + [f for found, _ in handed for f in found], any(
                self._is_keras_image_iterator(call) for maker in makers + generators
                for call in self.calls_in(maker)) or any(keras_images for _, keras_images in handed)
        if depth == 0:
            return None
        for callee in self.callees_of(site):
            for returned in m.findall(callee.node.body, m.Return(value=m.DoNotCare())):
                value = returned.value
                if isinstance(value, cst.Tuple):
                    elements = value.elements
                    value = elements[position].value if position is not None and position < len(elements) else None
                names = [value] if isinstance(value, cst.Call) else [
                    bound.node for bound in self._bindings.get((id(callee.module), id(callee.node), value.value), ())
                ] if isinstance(value, cst.Name) else []
                for call in names:
                    found = self.batch_makers(callee.module, call, call, depth - 1)
                    if found is not None:
                        return found
        return None

    def _batch_makers_passed(self, module: ModuleInfo, near: cst.CSTNode, parameter: str,
                             depth: int) -> tuple[list[FunctionInfo], bool] | None:
        """What :meth:`batch_makers` says of what the callers of the function around ``near`` pass for its
        ``parameter`` (``def train_with_generator(self, data_flow): self.model.fit_generator(data_flow)``, given a
        Keras image iterator by the notebook that calls it)."""
        function = self.enclosing_function(module, near)
        if function is None or depth == 0 or parameter not in _called_parameters(function):
            return None
        return next((found for caller, passed in self._passed_for(function, parameter)
                     if (found := self.batch_makers(caller.module, caller.node, passed, depth - 1)) is not None), None)

    def _generators_held(self, method: FunctionInfo) -> list[FunctionInfo]:
        """The generator methods whose generator ``method`` advances or hands out from an attribute of its instance
        (``next(self.generator)``, ``return self.generator``, with ``self.generator = self._generator()`` in
        ``__init__``): what makes the batches ``method`` returns."""
        if method.class_key is None:
            return []
        attributes = [node.value.attr.value for node in [
            *(call.args[0] for call in m.findall(method.node.body, _NEXT_OF_ATTRIBUTE)),
            *(returned for returned in m.findall(method.node.body, m.Return(value=_SELF_ATTRIBUTE)))]]
        return [generator for attribute in dict.fromkeys(attributes)
                for made in self._bindings.get(("attr", method.class_key, attribute), ())
                for generator in self.callees_of(made) if m.findall(generator.node.body, m.Yield())]

    def _iterated_arguments(self, site: CallSite, generator: FunctionInfo,
                            depth: int) -> Iterator[tuple[list[FunctionInfo], bool]]:
        """What :meth:`batch_makers` says of the batch sources ``site`` hands ``generator`` for parameters it takes
        items from (``next(batches)``, ``for x in batches``)."""
        passed = _arguments_by_parameter(site.node, _called_parameters(generator))
        sources = [call.args[0].value for call in m.findall(generator.node.body, _NEXT_CALL)]
        sources += [loop.iter for loop in m.findall(generator.node.body, m.For())]
        bindings = _loop_bindings(generator.node.body)
        iterated: set[str] = set()
        for source in sources:  # through `zip(images, masks)`, written in place or bound to a name first
            zipped = list(bindings.get(source.value, ())) if isinstance(source, cst.Name) else []
            for expression in [source, *zipped]:
                if m.matches(expression, m.Call(func=m.Name("zip"))):
                    iterated |= {arg.value.value for arg in expression.args if isinstance(arg.value, cst.Name)}
                elif isinstance(expression, cst.Name):
                    iterated.add(expression.value)
        for parameter in iterated & passed.keys():
            found = self.batch_makers(site.module, site.node, passed[parameter], depth)
            if found is not None:
                yield found

    def _overrides_called(self, site: CallSite, generators: list[FunctionInfo]) -> list[FunctionInfo]:
        """The receiver's own methods that inherited ``generators`` call through ``self``: bert4keras'
        ``train_generator.forfit()`` runs ``self.__iter__()``, which the script's subclass of ``DataGenerator``
        overrides to read the images."""
        receiver = site.node.func.value if isinstance(site.node.func, cst.Attribute) else None
        bound = self.bound_call(site.module, site.node, receiver.value) if isinstance(receiver, cst.Name) else None
        if bound is None:
            return []
        called = {call.node.func.attr.value for generator in generators for call in self.calls_in(generator)
                  if m.matches(call.node.func, m.Attribute(value=m.Name("self"), attr=m.Name()))}
        owners = {generator.class_key for generator in generators}
        return [method for cls_info in self._classes_constructed(bound) if cls_info.key not in owners
                for method in self.index.methods_of(cls_info) if method.name in called]

    @cached_property
    def training_image_iterators(self) -> list[CallSite]:
        """The Keras image iterators a training run makes to train on (``datagen.flow(x, y, batch_size=32)``): in
        code it reaches, and neither named, bound or passed as evaluation data (``val_generator = ...``,
        ``validation_data=datagen.flow(...)``) nor made in a branch only an evaluation takes."""
        found = []
        for site in self.index.calls:
            if not (self._is_keras_image_iterator(site) or self._makes_keras_iterator(site)) or self.reach(
                    site.module, site.node) is not Reach.TRAINING:
                continue
            assignment = self.index.assignment_of(site.node)
            parent = site.module.parent(site.node)
            if assignment is not None:
                names = [t.target.value for t in assignment.targets if isinstance(t.target, cst.Name)]
            elif isinstance(parent, cst.Arg) and parent.keyword is not None:
                names = [parent.keyword.value]
            else:
                names = []
            if not _in_evaluation_branch(site.module, site.node) and not any(map(_names_evaluation, names)):
                found.append(site)
        return found

    def _is_keras_image_iterator(self, site: CallSite) -> bool:
        """``ImageDataGenerator(...).flow(...)``, or ``datagen.flow_from_directory(...)`` on such a generator (or on
        one of a repo class that extends it)."""
        if not (isinstance(site.node.func, cst.Attribute) and site.node.func.attr.value in KERAS_IMAGE_ITERATORS):
            return False
        receiver = site.node.func.value
        if isinstance(receiver, cst.Name):
            bound = self.bound_call(site.module, site.node, receiver.value)
            names = bound.names if bound is not None else frozenset()
        else:
            names = self._names_of(receiver) if isinstance(receiver, cst.Call) else frozenset()
        # (or the repo's subclass of it: `class DroneDataGenerator(ImageDataGenerator)`)
        return any(name.endswith("ImageDataGenerator") for name in names) or any(
            base.endswith("ImageDataGenerator") for cls_info in self._classes_named(names) for base in cls_info.bases)

    def _reads_or_augments(self, iterator: CallSite) -> bool:
        """Whether a Keras image iterator reads image files (``flow_from_directory``) or augments its images: not a
        ``flow`` over arrays in memory from an ``ImageDataGenerator`` given no augmenting setting (``rescale``
        alone), which slices NumPy arrays. Where the generator's construction is not seen, or is the repo's own
        subclass, it may."""
        if iterator.node.func.attr.value != "flow":
            return True
        receiver = iterator.node.func.value
        made = self.bound_call(iterator.module, iterator.node, receiver.value) if isinstance(receiver, cst.Name) \
            else self._call_at.get(id(receiver))
        if made is None or not any(name.endswith("ImageDataGenerator") for name in made.names):
            return True
        return any(name not in IMAGE_SETTINGS_WITHOUT_WORK and self._truth(made.module, value) is not False
                   for name, value in self._keyword_arguments(made))

    def _makes_keras_iterator(self, site: CallSite) -> bool:
        """A call of a repo function that returns an instance of the repo's own subclass of Keras' image
        ``Iterator``: ``datagen.flow_from_imageset(loader, batch_size=1)``."""
        return any(self._extends_keras_iterator(cls_info) for callee in self.callees_of(site)
                   for returned in m.findall(callee.node.body, m.Return(value=m.Call()))
                   for cls_info in self._classes_named(self._names_of(returned.value)))

    def _extends_keras_iterator(self, cls_info: ClassInfo, depth: int = CALL_DEPTH) -> bool:
        """Whether a repo class extends Keras' image ``Iterator`` (or its directory and array iterators)."""
        return any(base.startswith("keras.") and base.endswith("Iterator") for base in cls_info.bases) or \
            depth > 0 and any(self._extends_keras_iterator(base, depth - 1)
                              for base in self._classes_named(cls_info.bases))

    def _classes_named(self, names: frozenset[str]) -> list[ClassInfo]:
        """Repo classes a callee's names may refer to (``Net()``, ``models.Net()``), by suffix as for functions."""
        return [c for name in names for c in self._classes_by_name.get(name, ())]

    def _classes_constructed(self, site: CallSite) -> list[ClassInfo]:
        """The repo classes a call makes (``Seq2Seq(...)``), as Python imports them where it is written: a class of
        its own module or folder before the same-named classes of the repo's other projects (:meth:`nearest`)."""
        found = self._classes_named(site.names)
        return self.index.nearest(site.module, site.names, found, lambda c: c.module) if len(found) > 1 else found

    @cached_property
    def _classes_by_name(self) -> dict[str, list[ClassInfo]]:
        by_name: dict[str, list[ClassInfo]] = {}
        for cls_info in self.index.classes:
            for name in import_names(cls_info.key):
                by_name.setdefault(name, []).append(cls_info)
        return by_name

    @staticmethod
    def _caller_key(site: CallSite) -> int | tuple:
        return id(site.function.node) if site.function is not None else ("module", id(site.module))

    @cached_property
    def _training_calls(self) -> list[CallSite]:
        """Calls that train: Keras ``fit``/``train_on_batch``, an Estimator's ``train(input_fn=...)`` (or any
        ``train`` of a name bound to an Estimator), ``train_and_evaluate``, and calls of the repo's training
        steps; not those a run stops before (:meth:`stops_before`)."""
        found = []
        for site in self.index.calls:
            method = site.node.func.attr.value if isinstance(site.node.func, cst.Attribute) else None
            if site.names & ESTIMATOR_TRAINING or method == "train" and (
                    argument_value(site.node, "input_fn") or self._estimator_receiver(site)):
                found.append(site)
            elif method in TRAINING_METHODS and not any(n.startswith(NOT_KERAS_PREFIXES) for n in site.names) \
                    and not self._made_by_other_library(site):
                found.append(site)
        found += [c for step in self.training_steps for c in self.callers_of(step)]
        # A run never gets to one after a statement that raises whatever the data (`GANLoss(...)` given six of its
        # eight arguments before `gan.fit(...)`): nothing trains there.
        return [site for site in found if self.stops_before(site.module, site.module.location(site.node).line) is None
                ] + self._graph_updates

    def _made_by_other_library(self, site: CallSite) -> bool:
        """Whether the receiver of ``site`` (``self.svm.fit(x, y)``, ``clf.fit(x, y)``) holds what another machine
        learning library made (``self.svm = svm.LinearSVC()``): its ``fit`` is no Keras training."""
        made = self._receiver_constructions(site)
        return bool(made) and all(any(n.startswith(NOT_KERAS_PREFIXES) for n in call.names) for call in made)

    def _receiver_constructions(self, site: CallSite) -> list[CallSite]:
        """The calls that made the object whose method ``site`` calls, where a name (``clf = svm.LinearSVC()``) or an
        attribute of ``self`` (``self.image = ImageCaptcha(...)`` in any method of the class) holds it."""
        receiver = site.node.func.value if isinstance(site.node.func, cst.Attribute) else None
        if m.matches(receiver, m.Attribute(value=m.Name("self"), attr=m.Name())) and site.function is not None:
            return self._bindings.get(("attr", _owner_class(site.function), receiver.attr.value), [])
        if isinstance(receiver, cst.Name):
            bound = self.bound_call(site.module, site.node, receiver.value)
            return [bound] if bound is not None else []
        return []

    def _estimator_receiver(self, site: CallSite) -> bool:
        """``model.train(input_fn, steps=n)`` where ``model = tf.estimator.Estimator(...)``: an Estimator trains; so
        does a keras_segmentation network (``model = vgg_unet(n_classes=51)``), whose ``train`` calls ``fit``."""
        receiver = site.node.func.value if isinstance(site.node.func, cst.Attribute) else None
        bound = self.bound_call(site.module, site.node, receiver.value) if isinstance(receiver, cst.Name) else None
        return bound is not None and (_makes_estimator(bound.names) or any(
            n.startswith("keras_segmentation.") and n in LIBRARY_NETWORKS for n in bound.names))

    @cached_property
    def training_loops(self) -> list[TrainingLoop]:
        """The code that runs once per training step: loops that run a training step per iteration (or write one
        inline: a GradientTape and a weight update in the loop's body), functions such loops call per iteration
        that call the step, and eager training steps' own bodies."""
        scopes: dict[int, TrainingLoop] = {}
        for step, call in self._step_calls():
            found = self.iteration_loop(call)
            if found is None or self.loops_over_batches(step):
                continue
            loop, loop_module = found
            if call.module.enclosing_loop(call.node) is loop:
                scope = scopes.setdefault(id(loop), TrainingLoop(call.module, loop, loop, loop_module))
            else:
                scope = scopes.setdefault(id(call.function.node), TrainingLoop(
                    call.module, call.function.node, loop, loop_module))
                # The loop that calls the step's caller runs its own body once per step too.
                around = scopes.setdefault(id(loop), TrainingLoop(loop_module, loop, loop, loop_module))
                if not self._returns_python_values(step):
                    around.step_names.add(call.function.key)
            if not self._returns_python_values(step):
                scope.step_names.update(call.names)
                scope.step_calls.append(call.node)
            if not self.is_compiled(step):
                scopes.setdefault(id(step.node), TrainingLoop(step.module, step.node, loop, loop_module))
        for call in self.index.calls_to(GRADIENT_TAPE):
            loop = call.module.enclosing_loop(call.node)
            if loop is not None and not (call.function is not None and self.runs_compiled(call.function)) \
                    and (_updates_weights(loop.body) or self._tape_takers(loop.body)):
                scopes.setdefault(id(loop), TrainingLoop(call.module, loop, loop, call.module)).inline_step = True
            elif loop is None and call.function is not None and not self.runs_compiled(call.function) \
                    and not _updates_weights(call.function.node.body):
                # The tape in a helper that returns the gradients, the update in the loop calling it (TensorFlow's
                # custom-training walkthrough: `loss, grads = grad(model, x, y)`, then `apply_gradients`).
                for caller in self.callers_of(call.function):
                    around = caller.module.enclosing_loop(caller.node)
                    if around is not None and _updates_weights(around.body) and not (
                            caller.function is not None and self.runs_compiled(caller.function)):
                        scope = scopes.setdefault(id(around), TrainingLoop(caller.module, around, around,
                                                                           caller.module))
                        scope.inline_step, scope.tape_helper = True, scope.tape_helper or caller
        for scope in scopes.values():
            names = _TensorNames(scope, self._names_of)
            visit_reading(scope.node.body, names)
            names.finish()
        return list(scopes.values())

    def _tape_takers(self, body: cst.BaseSuite) -> list[FunctionInfo]:
        """The repo functions ``body`` hands a tape it opens (``with tf.GradientTape() as tape:``) that take its
        gradients and update weights (``optimize(tape, generator, loss_g)``): the step's update, written apart."""
        tapes = {item.asname.name.value for item in m.findall(body, m.WithItem(asname=m.AsName(name=m.Name())))
                 if GRADIENT_TAPE in self._names_of(item.item)}
        handed = [self._call_at[id(call)] for call in m.findall(body, m.Call()) if id(call) in self._call_at and any(
            m.matches(arg.value, m.Name(value=m.MatchIfTrue(tapes.__contains__))) for arg in call.args)]
        return [function for site in handed for function in self.callees_of(site)
                if _updates_weights(function.node.body)]

    def loop_runs(self, module: ModuleInfo, loop: cst.For | cst.While, depth: int = CALL_DEPTH) -> int | None:
        """How many times the body of ``loop`` runs in all, where the source says: a ``for`` over ``range`` of known
        numbers, in such loops of its own scope (``for epoch in range(10): for i in range(100):`` runs it 1000
        times), in a function called that many times in all (a script's ``main()``: once); None when any of them
        iterates over anything else, or a function on the way has callers the source does not show."""
        runs = self._runs_in_scope(module, loop)
        function = self.enclosing_function(module, loop)
        if runs is None or function is None:
            return runs
        callers = self.callers_of(function)
        if not callers or depth == 0:
            return None
        calls = [self._call_runs(caller, depth - 1) for caller in callers]
        return runs * sum(calls) if None not in calls else None

    def _call_runs(self, call: CallSite, depth: int) -> int | None:
        """How many times ``call`` runs in all (see :meth:`loop_runs`)."""
        loop = call.module.enclosing_loop(call.node)
        if loop is not None:
            return self.loop_runs(call.module, loop, depth)
        if call.function is None:
            return 1
        callers = self.callers_of(call.function)
        if not callers or depth == 0:
            return None
        calls = [self._call_runs(caller, depth - 1) for caller in callers]
        return sum(calls) if None not in calls else None

    def _runs_in_scope(self, module: ModuleInfo, loop: cst.For | cst.While) -> int | None:
        runs: int | None = 1
        current: cst.CSTNode | None = loop
        while current is not None and runs is not None:
            count = self._range_length(module, current.iter) if isinstance(current, cst.For) else None
            runs = runs * count if count is not None else None
            current = module.enclosing_loop(current)
        return runs

    def _range_length(self, module: ModuleInfo, iterable: cst.BaseExpression) -> int | None:
        """``len(range(...))`` for ``range(n)``, ``range(a, b)`` of known integers (``enumerate(range(n))`` too)."""
        if m.matches(iterable, m.Call(func=m.Name("enumerate"), args=[m.Arg(), m.ZeroOrMore()])):
            iterable = iterable.args[0].value
        if not m.matches(iterable, m.Call(func=m.Name("range"))) or not 1 <= len(iterable.args) <= 2:
            return None
        bounds = [self.integer_literal(module, arg.value) for arg in iterable.args]
        if None in bounds:
            return None
        values = [bound.value for bound in bounds]
        return max(0, values[-1] - (values[0] if len(values) == 2 else 0))

    def loops_over_batches(self, step: FunctionInfo) -> bool:
        """A training step that is an epoch: it opens its tape in a loop of its own (``def train_epoch(ds): for x, y
        in ds: with tf.GradientTape() ...``). That loop runs once per step; its caller's loop, once per epoch."""
        return any(call.module.enclosing_loop(call.node) is not None
                   for call in self.calls_in(step) if GRADIENT_TAPE in call.names)

    def session_graph_context(self, site: CallSite) -> HotContext | None:
        """Where the op ``site`` builds (a ``tf.py_func`` in a Faster R-CNN's proposal layer) runs with every step of a
        TensorFlow 1.x training loop: code a training run reaches builds it into the graph the loop's ``sess.run``
        evaluates, outside the loop (inside, each iteration would add an op), and it feeds no summary (an image
        summary's drawing runs only when summaries are written)."""
        loops = self.session_loops
        if not loops or self.reach(site.module, site.node) is not Reach.TRAINING or any(
                loop.module is site.module and _inside(site.module, site.node, loop.node) for loop in loops) \
                or self._feeds_summary(site) or self._in_evaluation_code(site):
            return None
        loop = min(loops, key=lambda loop: (loop.module.path.as_posix(), loop.module.location(loop.node).line))
        return HotContext(loop.module, loop.session_runs[0], "", in_dataset=False, in_graph=True)

    def condition_around(self, site: CallSite) -> cst.If | None:
        """The innermost ``if`` of the code around ``site`` (in its function) that runs it on one of its branches
        only: ``if cfg.USE_E2E_TF:`` the TensorFlow proposal layer, ``else:`` the ``py_func`` one; ``if
        mode == "eager":`` the switch that turns compilation off."""
        scope = site.function.node if site.function is not None else None
        return next((branch for branch, part in _branches_around(site.module, site.node, scope)
                     if part is not branch.test), None)

    def _in_evaluation_code(self, site: CallSite) -> bool:
        """Whether ``site`` is in a function, or a method of a class, named like evaluation code (``metric_fn``,
        ``class EvaluationMetric``): it builds ops of an evaluation graph."""
        function = site.function
        names = [function.name, *(c.name for c in ([self.index.class_of(function)] if function.class_key else []))] \
            if function is not None else []
        return any(NOT_TRAINING_NAME.search(name) or "metric" in name.lower() for name in names)

    def _feeds_summary(self, site: CallSite) -> bool:
        """Whether what ``site`` returns goes into a summary op in the code around it: as an argument (``tf.summary.
        image("boxes", tf.py_func(draw, ...))``), or through names bound to it there (``image = tf.py_func(...)``,
        ``tf.summary.image("gt", tf.concat([image, labels], 2))``)."""
        module = site.module
        parent = module.parent(site.node)
        while parent is not None and not isinstance(parent, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
            if isinstance(parent, cst.Call) and self._is_summary(parent):
                return True
            parent = module.parent(parent)
        statement = next((s for s in getattr(parent, "body", ()) if isinstance(s, cst.Assign)), None) \
            if isinstance(parent, cst.SimpleStatementLine) else None
        tainted = _assigned_names(statement)
        if not tainted:
            return False
        scope = site.function.node if site.function is not None else module.tree
        assignments = m.findall(scope, m.Assign())
        for _ in range(FEED_HOPS):  # names bound to what the tainted names make (`images = tf.concat([img, ...])`)
            more = {name for assignment in assignments if _mentions(assignment.value, tainted)
                    for name in _assigned_names(assignment)} - tainted
            if not more:
                break
            tainted |= more
        return any(self._is_summary(call) and _mentions(call, tainted) for call in m.findall(scope, m.Call()))

    def _is_summary(self, call: cst.Call) -> bool:
        site = self._call_at.get(id(call))
        return site is not None and any(name.startswith(SUMMARY_OP_PREFIXES) for name in site.names)

    @cached_property
    def session_loops(self) -> list[TrainingLoop]:
        """TensorFlow 1.x training loops: Python loops whose body runs a session on a training op every iteration
        (``sess.run([train_op, loss], feed_dict=...)``, ``_, summary = sess.run([d_optim, d_sum], ...)``), or
        functions that do, called by a loop every iteration."""
        loops = self._loops_calling(lambda site: self._runs_training_op(site.node))
        for loop, runs in loops:
            loop.session_runs.extend(runs)
        # A loop that trains only every N iterations (`if episode % 10 == 0: sess.run(update)`) is no step loop;
        # one that alternates its updates between an `if` and its `else` (`if step % 3 == 1:` the discriminator,
        # else the generator) trains every step.
        return [loop for loop, runs in loops
                if not all(loop.throttles(run) for run in runs) or _split_by_one_test(loop.module, runs, loop.node)]

    @cached_property
    def keras_batch_loops(self) -> list[TrainingLoop]:
        """Keras training loops: Python loops whose body trains a batch every iteration (``d_loss =
        discriminator.train_on_batch(imgs, valid)``), or functions that do, called by a loop every iteration."""
        loops = self._loops_calling(lambda site: m.matches(site.node.func, m.Attribute(attr=m.Name("train_on_batch"))))
        for loop, calls in loops:
            loop.batch_trainings.extend(calls)
        return [loop for loop, calls in loops
                if not all(loop.throttles(call) for call in calls) or _split_by_one_test(loop.module, calls, loop.node)]

    def per_step_calls(self, loop: TrainingLoop) -> list[CallSite]:
        """The calls that run every iteration of ``loop``: in its body (not under a step interval), and in the repo
        functions those call, a few calls deep (not where a function makes them on some calls only: ``if
        self.steps % 100 == 0: self.update_target()``)."""
        found = {id(site.node): site for call, made in self.per_step_calls_by_body_call(loop) for site in (call, *made)}
        return list(found.values())

    def per_step_calls_by_body_call(self, loop: TrainingLoop, known_callees: bool = False
                                    ) -> list[tuple[CallSite, list[CallSite]]]:
        """:meth:`per_step_calls`, by the call in the loop's body each comes from: that call, and the calls the repo
        functions it calls make (``write_log(writer, names, losses, step)`` and the summary writes in it).
        ``known_callees``: only through calls of one function the source names (``write_log(...)``, ``self.log(...)``,
        ``utils.log(...)``, a method of an object of a known repo class), not a method of an object of unknown
        type guessed by its name (``sess.run`` is not the repo's one ``run`` method)."""
        # What the environment returns each step (`state, reward, done, _ = env.step(action)`): a branch on it
        # (`if done: agent.update_target()`) runs when an episode ends.
        environment = self.environment_step(loop)
        episode = _assigned_names(self.index.assignment_of(environment.node)) if environment is not None else set()
        calls: list[cst.Call] = []
        visit_reading(loop.node.body, _CallsMatching(m.Call(), calls))  # (a function defined there runs when called)
        body = [self._call_at[id(c)] for c in calls if id(c) in self._call_at]
        found = []
        for site in body:
            if loop.throttles(site.node) or _branches_on(loop.module, site.node, loop.node, episode):
                continue
            made, seen, frontier = [], set(), [site]
            for _ in range(CALL_DEPTH):
                called = [(s, f) for s in frontier if not known_callees or self._callee_named(s)
                          and len(self.callees_of(s)) == 1 for f in self.callees_of(s) if id(f.node) not in seen]
                seen |= {id(f.node) for _, f in called}
                frontier = [inner for s, f in called for inner in self.calls_in(f) if not (
                    _on_some_calls_only(f, inner.node) or self._switched_off_by(s, f, inner.node))]
                made += frontier
            found.append((site, made))
        return found

    def _switched_off_by(self, site: CallSite, function: FunctionInfo, node: cst.CSTNode) -> bool:
        """Whether ``node`` in ``function``'s body is under an ``if`` on one of its parameters (``if
        write_hists_summary:``) that ``site``, the call of it, does not switch on: the caller passes a value the
        source does not show true (a flag it sets every so many steps), or leaves a default that is not true."""
        skipped = self.index.unpassed_parameters(function)
        passed = _arguments_by_parameter(site.node, function.params[skipped:])
        for branch, part in _branches_around(function.module, node, function.node):
            test = branch.test
            if part is branch.body and isinstance(test, cst.Name) and test.value in function.params[skipped:]:
                given = passed.get(test.value, _parameter_default(function, test.value))
                if given is None or self._truth(site.module, given) is not True:
                    return True
        return False

    def instance_switch_off(self, method: FunctionInfo, node: cst.CSTNode) -> cst.If | None:
        """The ``if self.flag:`` (or ``if self.verbose > 0:``: a test of one attribute of ``self`` and literals)
        around ``node`` in ``method`` that every instance of its class has off: the class sets ``self.flag`` only to
        literals, or to a constructor parameter with a literal default, that make the test false, and no
        construction passes another value (``NeRFTrainMonitor(..., verbose=False)``, built without ``verbose``);
        None where one may be on, or where no construction is seen."""
        if method.class_key is None:
            return None
        for branch, part in _branches_around(method.module, node, method.node):
            attributes = {n.attr.value for n in m.findall(branch.test, m.Attribute(value=m.Name("self"),
                                                                                   attr=m.Name()))}
            if part is not branch.body or len(attributes) != 1:
                continue
            values = self._values_in_every_instance(self.index.class_of(method), attributes.pop())
            reading = m.Attribute(value=m.Name("self"), attr=m.Name())
            if values and all(self._truth(module, m.replace(branch.test, reading, value)) is False
                              for module, value in values):
                return branch
        return None

    def _values_in_every_instance(self, cls_info: ClassInfo, attribute: str
                                  ) -> list[tuple[ModuleInfo, cst.BaseExpression]] | None:
        """What ``self.<attribute>`` holds in the instances of a class, by where each value is written: its
        methods' assignments of it, a constructor parameter's value in each construction (or its default); None
        where no assignment or no construction is seen, or a construction passes it by ``*args``/``**kwargs``."""
        methods = self.index.methods_of(cls_info)
        constructor = next((f for f in methods if f.name == "__init__"), None)
        constructions = self.constructions_of(cls_info)
        setting = m.Assign(targets=[m.AssignTarget(m.Attribute(value=m.Name("self"), attr=m.Name(attribute)))])
        assigned = [(method, assignment.value) for method in methods
                    for assignment in m.findall(method.node.body, setting)]
        if not assigned or not constructions:
            return None
        values: list[tuple[ModuleInfo, cst.BaseExpression]] = []
        for method, value in assigned:
            if isinstance(value, cst.Name) and method is constructor and value.value in method.params:
                skipped = self.index.unpassed_parameters(method)
                default = _parameter_default(method, value.value)
                for site in constructions:
                    passed = _arguments_by_parameter(site.node, method.params[skipped:]).get(value.value)
                    if passed is None and (default is None or any(arg.star for arg in site.node.args)):
                        return None
                    values.append((site.module, passed) if passed is not None else (method.module, default))
            else:
                values.append((method.module, value))
        return values

    def _callee_named(self, site: CallSite) -> bool:
        """Whether the source names what ``site`` calls: a function by name or through a module, a method of
        ``self``, or of an object of a known repo class (one function of them: not a base class's call of a method
        every subclass overrides)."""
        func = site.node.func
        return isinstance(func, cst.Name) or m.matches(func, m.Attribute(value=m.Name("self"))) or bool(
            self._callees_by_name(site)) or isinstance(func, cst.Attribute) and bool(self._receiver_classes(site))

    def _loops_calling(self, chosen: Callable[[CallSite], bool]) -> list[tuple[TrainingLoop, list[cst.Call]]]:
        """The loops whose body makes ``chosen`` calls, or the functions that do that a loop calls per iteration (a
        step function: its body runs once per step), each with those calls."""
        loops: dict[int, tuple[TrainingLoop, list[cst.Call]]] = {}
        for site in self.index.calls:
            if not chosen(site):
                continue
            loop = site.module.enclosing_loop(site.node)
            if loop is not None:
                loops.setdefault(id(loop), (TrainingLoop(site.module, loop, loop, site.module), []))[1].append(
                    site.node)
                continue
            for caller in self.callers_of(site.function) if site.function is not None else ():
                around = caller.module.enclosing_loop(caller.node)
                if around is not None:
                    loops.setdefault(id(site.function.node), (TrainingLoop(
                        site.module, site.function.node, around, caller.module), []))[1].append(site.node)
                    break
        return list(loops.values())

    def fed_batches(self, loop: TrainingLoop) -> FedBatches | None:
        """How a TensorFlow 1.x loop (:attr:`session_loops`) feeds its training runs data made in Python: the
        ``feed_dict`` of its first training run that feeds a batch fetched out of the graph's own input pipeline
        (:meth:`_fetches_input`), else of the first whose values include batches made in the loop's body (sliced
        from arrays, or computed by calls), with the host work those calls do. None when it feeds only settings
        (``keep_prob: 0.5``), noise drawn with NumPy (a GAN's style codes, ``np.random.normal(size=(1, 8))``: no
        batch worth a pipeline), or nothing: the graph then reads its own input."""
        bindings = _loop_bindings(loop.node.body)
        # The runs of every step before those of some steps (`if i % 100 == 99: sess.run(..., options=trace)`)
        runs = sorted(loop.session_runs, key=loop.throttles)
        for run in runs:
            feed = argument_value(run, "feed_dict", 1)
            fetches = [bound for value in _fed_values(feed, bindings) if isinstance(value, cst.Name)
                       for bound in bindings.get(value.value, ()) if self._fetches_input(loop, bound)]
            if fetches:
                return FedBatches(feed, fetches[:1], [], fetched=True)
        for run in runs:
            feed = argument_value(run, "feed_dict", 1)
            values = _fed_values(feed, bindings, settings=False)
            made = [expression for value in values for expression in _made_in_loop(value, bindings)] or \
                self._made_by_the_calling_loop(loop, values)
            if made and not all(self._draws_noise(expression) for expression in made):
                calls = [self._call_at[id(c)] for e in made for c in m.findall(e, m.Call()) if id(c) in self._call_at]
                makers = list({id(f.node): f for site in calls for f in self.callees_of(site)}.values())
                work = [site for site in calls if _reads_or_decodes(self._work_names(site))] + [
                    c for f in makers for c in self.reading_work(MappedFunction(f.node.body, f.module, f))]
                return FedBatches(feed, made, work, sample_loops=[
                    (f, loop) for f in makers if (loop := self.sample_loop(f)) is not None])
        return None

    def _draws_noise(self, expression: cst.BaseExpression, depth: int = 1) -> bool:
        """Whether ``expression`` only draws random numbers on the host (``np.random.normal(size=shape)``, with a
        ``.astype(...)`` after it), itself or through a repo function that returns such a draw (``sample_z(n)``)."""
        while m.matches(expression, m.Call(func=m.Attribute(value=m.Call()))):  # `np.random.normal(...).astype(t)`
            expression = expression.func.value
        site = self._call_at.get(id(expression)) if isinstance(expression, cst.Call) else None
        if site is None or _draws_at_random(site):
            return site is not None
        makers = self.callees_of(site) if depth else []
        returns = [[r.value for r in m.findall(f.node.body, m.Return())] for f in makers]
        return bool(returns) and all(values and all(value is not None and self._draws_noise(value, depth - 1)
                                                    for value in values) for values in returns)

    def _made_by_the_calling_loop(self, loop: TrainingLoop, values: list[cst.BaseExpression]
                                  ) -> list[cst.BaseExpression]:
        """For a step function (``def train_step(self, sess, blobs, train_op)``), what the loop that calls it makes
        each iteration and passes for the parameters fed (``blobs["data"]`` of ``blobs =
        self.data_layer.forward()``): the expressions that make it."""
        function = self.index.function_of(loop.node) if isinstance(loop.node, cst.FunctionDef) else None
        if function is None or loop.loop is None:
            return []
        roots = set()
        for value in values:
            while isinstance(value, cst.Subscript):
                value = value.value
            if isinstance(value, cst.Name):
                roots.add(value.value)
        outer = _loop_bindings(loop.loop.body)
        return [expression for parameter in sorted(roots & set(_called_parameters(function)))
                for caller, passed in self._passed_for(function, parameter) if _inside(caller.module, caller.node,
                                                                                         loop.loop)
                for expression in _made_in_loop(passed, outer)]

    def _fetches_input(self, loop: TrainingLoop, expression: cst.BaseExpression) -> bool:
        """Whether ``expression`` runs the graph for its input pipeline's next batch: ``sess.run(next_batch)`` (or
        ``sess.run(batch) / 255.0``) where ``next_batch = iterator.get_next()``, or ``batch`` is a queue's batch
        (``tf.train.shuffle_batch``), made there or returned by a repo function that makes it."""
        runs = m.findall(expression, m.Call(func=m.Attribute(attr=m.Name("run")), args=[m.Arg(m.Name()),
                                                                                          m.ZeroOrMore()]))
        return any((bound := self.bound_call(loop.module, run, run.args[0].value.value)) is not None and (
            _is_input_batch(bound) or any(_is_input_batch(site) for function in self.callees_of(bound)
                                          for site in self.calls_in(function))) for run in runs)

    def cpu_placement(self, module: ModuleInfo, node: cst.CSTNode, depth: int = CALL_DEPTH) -> cst.Call | None:
        """The ``with tf.device("/cpu:0"):`` (or a graph's ``g.device(...)``) that places ``node`` (a call, a loop) on
        the CPU: around it, or around every call of its function the repo shows (``main()`` building and training
        the whole model under it); None where the repo places code on a GPU too (towers under a CPU scope holding
        the variables)."""
        around = module.parent(node)
        while around is not None and not isinstance(around, (cst.FunctionDef, cst.Module)):
            if isinstance(around, cst.With):
                placing = next((item.item for item in around.items if m.matches(item.item, _CPU_DEVICE)), None)
                if placing is not None:
                    return None if self._places_on_gpu else placing
            around = module.parent(around)
        function = self.enclosing_function(module, node)
        callers = self.callers_of(function) if function is not None and depth else []
        placed = [self.cpu_placement(caller.module, caller.node, depth - 1) for caller in callers]
        return placed[0] if placed and all(placed) and not self._places_on_gpu else None

    @cached_property
    def _places_on_gpu(self) -> bool:
        """Whether the repo places code on a GPU (``with tf.device("/gpu:%d" % i):``): a CPU scope around its
        training then only holds the variables of GPU towers (monodepth)."""
        # (the text test first: most modules name no GPU and are not walked)
        return any(m.findall(module.tree, _GPU_DEVICE) for module in self.index.modules if "gpu" in module.code.lower())

    def acting_environment(self, site: CallSite) -> CallSite | None:
        """Where the programs that run ``site`` (a model's construction, a graph's update) make a reinforcement-
        learning environment (``gym.make("Pong-v0")``, a TF-Agents suite's ``load``): an agent trains between
        environment steps, which the host runs in Python; where those programs are unknown, one in ``site``'s
        folder."""
        run = self._run_of(self._caller_key(site))
        folder = site.module.path.parent
        return next((maker for maker in self._environment_makers if (
            self._caller_key(maker) in run if run is not None else maker.module.path.parent == folder)), None)

    def environment_stepped_by(self, site: CallSite) -> CallSite | None:
        """The reinforcement-learning environment step (``env.step(action)``) that the Python function handed to
        ``site`` (a ``tf.numpy_function``, ``tf.py_function``) makes: how a compiled rollout reaches an environment
        written in Python (TensorFlow's actor-critic tutorial). That Python is the environment, not work that
        TensorFlow ops could do."""
        function = self.mapped_function(site.node, site.module, "func")
        stepping = self.calls_run_by(function) if function is not None else []
        return next((call for call in stepping if m.matches(call.node, _ENVIRONMENT_STEP)), None)

    def pipeline_environment(self, pipeline: Pipeline) -> CallSite | None:
        """The reinforcement-learning environment the programs that build ``pipeline`` make
        (:meth:`acting_environment`): their updates wait on the environment's steps on the host more than on this
        input (a replay buffer read between rollouts)."""
        site = self._call_at.get(id(pipeline.last_stage.node))
        return self.acting_environment(site) if site is not None else None

    @cached_property
    def _environment_makers(self) -> list[CallSite]:
        """Environments made by a library (``gym.make``), or a repo's own stepped as gym's are: ``s1, r, d =
        env.step(a)`` unpacks an observation, a reward and an end flag (a gridworld's ``gameEnv``)."""
        return [site for site in self.index.calls if any(
            n.startswith(ENVIRONMENT_LIBRARIES) and n.rsplit(".", 1)[-1] in ("make", "load") for n in site.names)
            or m.matches(site.node, _ENVIRONMENT_STEP) and _unpacks_a_transition(site)]

    def environment_step(self, loop: TrainingLoop) -> CallSite | None:
        """Where a training loop steps a Python environment every iteration (reinforcement learning), in its body or
        in the repo functions it calls: ``env.step(action)``, a driver's ``collect_driver.run(time_step)`` (on an
        object named like one); for a step function, in the body of the loop that calls it as well (``agent.update()``
        after ``env.step(action)``), not in loops further out (``for j in range(update_every): agent.update()``
        runs updates back to back). The environment takes Python values from the policy: the host waits every
        step."""
        found = self._environment_step_in(loop.node.body, loop.module)
        if found is None and isinstance(loop.node, cst.FunctionDef) and loop.loop is not None:
            found = self._environment_step_in(loop.loop.body, loop.loop_module)
        return found

    def environment_around(self, loop: TrainingLoop) -> CallSite | None:
        """Where a loop around a training loop steps a Python environment (:meth:`environment_step`): the loop that
        calls a step function (``agent.learn(s, a, r, s_)`` after ``env.step(a)``), or the loops around one
        (``for t in range(steps): env.step(a)``, then ``for j in range(update_every):`` the updates): its batches
        are the transitions just played, or a replay memory's sample of them."""
        if isinstance(loop.node, cst.FunctionDef):
            outer, module = loop.loop, loop.loop_module
        else:
            outer, module = loop.module.enclosing_loop(loop.node), loop.module
        while outer is not None:
            found = self._environment_step_in(outer.body, module)
            if found is not None:
                return found
            outer = module.enclosing_loop(outer)
        return None

    def _environment_step_in(self, body: cst.BaseSuite, module: ModuleInfo) -> CallSite | None:
        return next((site for site in self.calls_run_by(MappedFunction(body, module, None))
                     if m.matches(site.node, _ENVIRONMENT_STEP)), None)

    @cached_property
    def keras_calls_per_step(self) -> list[PerStepKerasCall]:
        """Keras' whole-dataset methods (``fit``, ``predict``, ``evaluate``) called on a Keras model once per
        iteration of a Python loop, on that iteration's data: in the loop's body, or in a function it calls per
        iteration (an agent's ``act(state)``). Each call sets up an iterator, callbacks and a progress bar before
        it runs one small batch; the ``*_on_batch`` methods and calling the model run just the batch."""
        found = []
        for site in self.index.calls:
            method = site.node.func.attr.value if isinstance(site.node.func, cst.Attribute) else None
            data = argument_value(site.node, "x", 0)
            if method not in KERAS_DATASET_METHODS or data is None or not self._keras_model_receiver(site):
                continue
            keywords = {arg.keyword.value for arg in site.node.args if arg.keyword is not None}
            if not keywords <= KERAS_DATASET_METHODS[method] or self._whole_training_run(site):
                continue  # a method of the repo's own model class (`predict(text, encode=True)`), a training run
            if self._every_n_steps(site):
                continue  # (`if step % 1000 == 0:` samples a few predictions)
            per_step = self._per_iteration(site, data)
            if per_step is not None:
                found.append(PerStepKerasCall(site, *per_step))
        return found

    def _whole_training_run(self, site: CallSite) -> bool:
        """Whether ``site`` is a ``fit`` for more than one epoch, or for as many as the source does not say
        (``epochs=tf_epochs + nt_epochs``): a training run, not a step, whatever loop it is in. A parameter
        counts as what the callers pass, or its default (``def train(self, x, y, epochs=1)``)."""
        func = site.node.func
        epochs = argument_value(site.node, "epochs") or argument_value(site.node, "nb_epoch")
        return isinstance(func, cst.Attribute) and func.attr.value == "fit" and epochs is not None and \
            self._integer(site.module, epochs, None, site.function) != 1

    def _keras_model_receiver(self, site: CallSite) -> bool:
        """Whether ``site``'s receiver is a Keras model whose ``site`` method is Keras' own: bound to a model's
        construction (or a builder returning one, or ``load_model``), passed one, or an attribute its class assigns
        one (``self.model = self._build_model()``) or is given one (``WGAN(generator, critic)`` for ``self.generator =
        generator``); not a repo model class that defines the method itself."""
        receiver = site.node.func.value
        if m.matches(receiver, m.Name("self")):  # `self.predict(obs)` in a method of a Keras model subclass
            return self._inherits_keras_method(_owner_class(site.function), site.node.func.attr.value)
        if m.matches(receiver, m.Attribute(value=m.Name("self"), attr=m.Name())):
            owner, attribute = _owner_class(site.function), receiver.attr.value
            made = self._bindings.get(("attr", owner, attribute), []) or [
                bound for construction, passed in self._passed_for_attribute(owner, attribute)
                if isinstance(passed, cst.Name) and (bound := self.bound_call(
                    construction.module, construction.node, passed.value)) is not None]
        elif isinstance(receiver, cst.Name) and (bound := self.bound_call(site.module, site.node, receiver.value)):
            made = [bound]
        elif m.matches(receiver, m.Attribute(value=m.Name(), attr=m.Name())):  # `agent.brain.predict(...)`
            holder = self.bound_call(site.module, site.node, receiver.value.value)
            made = [assigned for cls_info in (self._classes_constructed(holder) if holder else [])
                    for assigned in self._bindings.get(("attr", cls_info.key, receiver.attr.value), [])]
        elif m.matches(receiver, m.Attribute(value=m.Attribute(value=m.Name("self"), attr=m.Name()), attr=m.Name())):
            # `self.actor.model.predict(state)`: what the class of the agent's actor sets its `model` to
            made = [assigned for cls_info in self._attribute_classes(_owner_class(site.function),
                                                                     receiver.value.attr.value, CALL_DEPTH)
                    for assigned in self._bindings.get(("attr", cls_info.key, receiver.attr.value), [])]
        else:
            made = self._constructions_of_receiver(site)
        if any(call.names & KERAS_MODEL_LOADERS for call in made):
            return True
        constructions = [c for call in made for c in self._constructions_in_call(call, CALL_DEPTH)]
        method = site.node.func.attr.value
        return bool(constructions) and not any(f.name == method for c in [*made, *constructions]
                                               for cls_info in self._classes_constructed(c)
                                               for f in self.index.methods_of(cls_info))

    def _inherits_keras_method(self, class_key: str | None, method: str) -> bool:
        """Whether the repo class ``class_key`` is a Keras model whose ``method`` is Keras' own: neither it nor a
        repo class it extends defines one."""
        if class_key not in self._keras_model_classes:
            return False
        lineage = [c for c in self.index.classes if c.key == class_key or class_key in {
            sub.key for sub in self.index.subclasses_of(c.key)}]
        return not any(f.name == method for c in lineage for f in self.index.methods_of(c))

    def _per_iteration(self, site: CallSite, data: cst.BaseExpression
                       ) -> tuple[cst.For | cst.While, ModuleInfo, str] | None:
        """The loop whose iterations make ``site`` on their own data, with why the data is one iteration's: the
        innermost loop around the call (or around a call of its function, a few calls deep), where a loop around
        it trains (an episode loop trains between the steps its inner loop takes)."""
        nest = _loop_nest(site.module, site.node)
        receiver = site.node.func.value
        made = self.bound_call(site.module, site.node, receiver.value) if isinstance(receiver, cst.Name) else None
        if made is not None and any(_inside(site.module, made.node, loop) for loop in nest) or any(
                self._whole_training_run(run) for loop in nest for call in m.findall(loop.body, m.Call())
                if (run := self._call_at.get(id(call))) is not None):
            return None  # a new model, or a whole `fit`, each iteration: the loop iterates training runs
        if nest and site.function is not None and not self._during_training(site.module, nest[0]) and any(
                self._whole_training_run(run) and not _inside(site.module, run.node, nest[0])
                for run in self.calls_in(site.function)):
            return None  # a loop beside a whole `fit` (predicting the validation images after it): once per run
        reason = self._given(site, data, lambda at, value: _one_sample(at.module, value, at.node)
                             or _bound_to_one_sample(at, value) or _environment_observation(at, value)) or self._given(
            site, data, lambda at, value: self._minibatch_drawn(at.module, at.function, at.node, value)) or next(
            (walked for loop in nest if (walked := self._walked_element(site.module, loop, data)
                                         or _one_batch_sliced(site.module, loop, data, site.node)
                                         or self._drawn_anew(site.module, loop.body, data, "iteration"))), None) or (
            self._drawn_anew(site.module, site.function.node.body, data, "call") if site.function else None) or \
            self._beside_environment(site)
        if reason is None:
            return None
        for call in self._per_step_callers(site):
            around = _loop_nest(call.module, call.node)
            if around and self._steps_in_inner_loops(call.module, around[0]):
                continue  # once per epoch of a loop whose inner loop takes the steps (a GAN's samples)
            if any(self._during_training(call.module, loop) for loop in around):
                return (nest[0], site.module, reason) if nest else (around[0], call.module, reason)
        return None

    def _per_step_callers(self, site: CallSite) -> Iterator[CallSite]:
        """The call, then its callers up to CALL_DEPTH calls away, nearest first, but not those under a step
        interval (an episode loop's `agent.act(s)` reaches a brain's `predict_one`, which runs `predict`)."""
        calls, depth = [site], CALL_DEPTH + 1
        while calls and depth:
            yield from calls
            calls = [caller for call in calls if call.function is not None
                     for caller in self.callers_of(call.function) if not self._every_n_steps(caller)]
            depth -= 1

    def _beside_environment(self, site: CallSite) -> str | None:
        """Why what ``site`` is given is one step's data whatever it is: the call runs, a few calls deep, in a loop
        that steps an environment every iteration (an agent's update between its moves). An agent has no dataset:
        it learns from what it played, a step's or a replay memory's minibatch (``self.model.predict(self.b_obs)``
        on rows a sum tree's draw filled)."""
        for call in self._per_step_callers(site):
            nest = _loop_nest(call.module, call.node)
            environment = self._environment_step_in(nest[0].body, call.module) if nest else None
            if environment is None or environment.module.enclosing_loop(environment.node) not in (None, nest[0]):
                continue  # (a loop over episodes, whose inner loop steps: an update per episode learns from it)
            return (f"data of the agent's steps: it runs in the loop that steps an environment "
                    f"(`{environment.module.node_code(environment.node.func)}(...)`, "
                    f"{environment.module.location(environment.node).display})")
        return None

    def _given(self, site: CallSite, data: cst.BaseExpression,
               reason_at: Callable[[CallSite, cst.BaseExpression], str | None]) -> str | None:
        """Why ``data``, passed to ``site``, is one iteration's sample or minibatch (``reason_at`` tells where it
        is written): there, or, for a parameter of the function around ``site``, where a caller passes it
        (``self.predict(s.reshape(1, n))`` for a ``predict(self, s)`` that runs the model's; ``self.brain.train(x,
        y)`` with ``x`` filled from a replay sample)."""
        reason = reason_at(site, data)
        function = site.function
        if reason is not None or not isinstance(data, cst.Name) or function is None or \
                data.value not in _called_parameters(function):
            return reason
        return next((reason for caller, given in self._passed_for(function, data.value)
                     if (reason := reason_at(caller, given))), None)

    def _minibatch_drawn(self, module: ModuleInfo, function: FunctionInfo | None, near: cst.CSTNode,
                         data: cst.BaseExpression) -> str | None:
        """Why ``data`` is a minibatch drawn at random: the names it is computed from, through the assignments of
        the function around ``near`` (of the outermost loop around it at module level), lead to a draw of a few
        items (``random.sample(memory, 32)``, ``np.random.choice``) or to a repo function that draws from what its
        object holds (a replay memory's ``sample(n)``): a DQN's replay batch, rows filled in from it (``x[i] = s``)
        or sized by it. (A function that makes up a whole dataset at random draws from no held collection.)"""
        scope = _code_around(module, function, near)
        if scope is None:
            return None
        for expression in _computed_from(data, _loop_bindings(scope)):
            for call in m.findall(expression, m.Call()):
                drawn = self._call_at.get(id(call))
                if drawn is not None and (_draws_items(drawn) or any(
                        _draws_held_items(inner) for callee in self.callees_of(drawn)
                        for node in m.findall(callee.node.body, m.Call()) if (inner := self._call_at.get(id(node))))):
                    return f"a minibatch drawn at random (`{module.node_code(call)}`)"
        return None

    def _every_n_steps(self, site: CallSite) -> bool:
        """Whether ``site`` runs under a step interval (``if batch % 100 == 0:``) in its function, not an interval
        of 1 (``if t % FRAME_PER_ACTION == 0:`` with ``FRAME_PER_ACTION = 1``), or only the first time (``if not
        self.started: self.started = True; ...``). An interval around a loop that walks data (``for x, y in
        val_batches:``, a validation pass every few epochs) makes the call once per element whenever it comes."""
        one = m.Integer("1")
        walker = next((loop for loop in _loop_nest(site.module, site.node) if isinstance(loop, cst.For)
                       and not m.matches(loop.iter, m.Call(func=m.Name("range")) | m.List() | m.Tuple())), None)
        for branch, part in _branches_around(site.module, site.node):
            if part is branch.test or walker is not None and _inside(site.module, walker, part):
                continue
            if part is branch.body and _initialises_once(branch):
                return True
            for operation in m.findall(branch.test, m.BinaryOperation(operator=m.Modulo())):
                divisor = operation.right
                constant = self.index.constant(site.module, divisor) if isinstance(
                    divisor, (cst.Name, cst.Attribute)) else None
                if not (m.matches(divisor, one) or constant is not None and m.matches(constant.value, one)):
                    return True
        return False

    def _during_training(self, module: ModuleInfo, loop: cst.For | cst.While) -> bool:
        """Whether ``loop`` runs while a model trains: its iterations train (an agent's episode loop, a replay loop
        fitting transitions), or a Keras callback's hook runs it (text sampled after every epoch); not a loop that
        only uses a trained model (generating text once training is done)."""
        if any(self._reaches_training(call, CALL_DEPTH) for call in m.findall(loop.body, m.Call())):
            return True
        return self._in_callback(module, loop)

    def _in_callback(self, module: ModuleInfo, node: cst.CSTNode) -> bool:
        """Whether ``node`` is in a Keras callback's code: a method of a ``Callback`` subclass, or a function handed
        to a ``LambdaCallback``."""
        function = self.enclosing_function(module, node)
        return function is not None and (function.class_key in self._callback_classes
                                         or function.name in self._lambda_callback_hooks)

    def _reaches_training(self, call: cst.Call, depth: int) -> bool:
        """Whether ``call`` trains (:meth:`leads_to_training`) or calls, a few calls deep, a function that does (an
        agent's ``replay`` whose ``_learn`` fits)."""
        key = (id(call), depth)
        if key not in self._training_reached:
            site = self._call_at.get(id(call))
            self._training_reached[key] = self.leads_to_training(call) or depth > 0 and site is not None and any(
                self._reaches_training(inner.node, depth - 1) for callee in self.callees_of(site)
                for inner in self.calls_in(callee))
        return self._training_reached[key]

    @cached_property
    def _callback_classes(self) -> set[str]:
        return {c.key for c in self.index.subclasses_of("keras.callbacks.Callback")}

    @cached_property
    def _measuring_classes(self) -> set[str]:
        """The repo's Keras metrics and callbacks: what they build watches the training, and learns nothing."""
        return {c.key for c in self.index.subclasses_of("keras.metrics.Metric", "keras.callbacks.Callback")}

    @cached_property
    def _lambda_callback_hooks(self) -> set[str]:
        """The names of the functions handed to a ``LambdaCallback`` (``on_epoch_end=sample_text``)."""
        return {arg.value.value for site in self.index.calls if site.names & LAMBDA_CALLBACKS
                for arg in site.node.args if isinstance(arg.value, cst.Name)}

    @staticmethod
    def _walked_element(module: ModuleInfo, loop: cst.For | cst.While, data: cst.BaseExpression) -> str | None:
        """``data`` is a name the loop binds to each element of what it walks (``for state, action, reward in
        minibatch:``), where that is not a range of numbers, or to the item its index picks (``hr_imgs =
        hr_batches[b]`` in ``for b in range(len(hr_batches)):``): one sample or batch per iteration."""
        if not (isinstance(loop, cst.For) and isinstance(data, cst.Name)):
            return None
        targets = set(_bound_names(loop.target))
        for item in _loop_bindings(loop.body).get(data.value, ()):
            if m.matches(item, m.Subscript(value=m.Name(), slice=[m.SubscriptElement(m.Index(m.Name(
                    value=m.MatchIfTrue(targets.__contains__))))])):
                return f"`{data.value}`, the item `{module.node_code(item)}` of each iteration"
        if data.value not in targets or m.matches(loop.iter, m.Call(func=m.Name("range")) | m.List() | m.Tuple()):
            return None  # (`for data in [x, x_flipped]:` walks whole datasets the source lists)
        return f"`{data.value}`, an element of `{module.node_code(loop.iter)}`"

    def _drawn_anew(self, module: ModuleInfo, body: cst.BaseSuite, data: cst.BaseExpression,
                    each: str) -> str | None:
        """``data`` is a name ``body`` (a loop's, or a function's that the loop calls) binds to a random draw, or
        to what a repo function returns one (a GAN's batch of noise, `generate_latent_points(100, n)`): new on each
        ``each`` (iteration, call); or such a draw itself, passed inline (``predict(np.random.uniform(-1, 1, (n,
        100)))``)."""
        if isinstance(data, cst.Call):
            values, drawn = [data], "drawn"
        elif isinstance(data, cst.Name):
            values, drawn = _loop_bindings(body).get(data.value, ()), f"`{data.value}`, drawn"
        else:
            return None
        for value in values:
            site = self._call_at.get(id(value)) if isinstance(value, cst.Call) else None
            if site is not None and (_draws_at_random(site) or any(
                    self._returns_a_draw(callee) for callee in self.callees_of(site))):
                return f"{drawn} each {each} (`{module.node_code(value.func)}`)"
        return None

    def _returns_a_draw(self, function: FunctionInfo) -> bool:
        """Whether ``function`` returns a value computed from a random draw it makes (``x = randn(n * d)``, then
        ``return x.reshape(n, d)``)."""
        bindings = _loop_bindings(function.node.body)
        return any(_draws_at_random(site) for returned in m.findall(function.node.body, m.Return())
                   if returned.value is not None for expression in _computed_from(returned.value, bindings)
                   for call in m.findall(expression, m.Call()) if (site := self._call_at.get(id(call))))

    def _steps_in_inner_loops(self, module: ModuleInfo, loop: cst.For | cst.While) -> bool:
        """Whether ``loop`` trains only in loops nested in it (an epoch loop around the loop over batches): what its
        own body calls runs once per many steps. Not a loop that steps an environment itself (not in a loop nested
        in it, an episode's): each of its iterations is a step the agent takes, whatever loop its updates run in
        (PPO's epochs over the rollout)."""
        inner = m.findall(loop.body, m.For() | m.While())
        if self._environment_step_in(loop.body, module) is not None and not any(
                self._environment_step_in(nested.body, module) is not None for nested in inner):
            return False
        training = [call for call in m.findall(loop.body, m.Call()) if self._reaches_training(call, CALL_DEPTH)]
        return bool(training) and all(any(_inside(module, call, nested) for nested in inner) for call in training)

    def extra_session_runs(self, loop: TrainingLoop) -> list[cst.Call]:
        """Graph runs a TensorFlow 1.x loop makes besides its training runs, once per iteration: ``loss.eval(feed)``
        and the same session's ``run`` on other fetches (each runs the graph again, a forward pass at least)."""
        sessions = {loop.module.node_code(run.func.value) for run in loop.session_runs}
        session_run = m.Call(func=m.Attribute(value=m.MatchIfTrue(lambda receiver: loop.module.node_code(receiver)
                                                                   in sessions), attr=m.Name("run")))
        # `v.assign(values).eval()` writes host values into a variable: no pass over the data.
        assignment = m.Call(func=m.Attribute(attr=m.Name("assign") | m.Name("assign_add") | m.Name("assign_sub")))
        evaluation = m.Call(func=m.Attribute(value=~assignment, attr=m.Name("eval"))) | session_run
        found: list[cst.Call] = []
        visit_reading(loop.node.body, _CallsMatching(evaluation, found))
        # A run for its effect (`sess.run(reset_op)`, a gradient accumulation) or one that feeds nothing (a counter
        # read), or a variable's value read (`global_step.eval(sess)`), is no second pass over the data: only a run
        # whose value is read and that is fed inputs.
        return [call for call in found if not self._runs_training_op(call) and not self._runs_accumulation(call) and (
            not m.matches(call, session_run) or (argument_value(call, "feed_dict", 1) is not None
                                                 and not m.matches(loop.module.parent(call), m.Expr())))
                and not (m.matches(call, m.Call(func=m.Attribute(attr=m.Name("eval"))))
                         and (self._is_variable(loop.module, call, call.func.value, CALL_DEPTH)
                              or self._is_assignment(loop.module, call, call.func.value)))
                and not self._fed_to_a_run(loop, call)]

    def _is_assignment(self, module: ModuleInfo, near: cst.CSTNode, expression: cst.BaseExpression) -> bool:
        """Whether ``expression`` names an op that writes a variable (``clip_weights = tf.assign(weights,
        clipped)``): evaluating it runs an update, it reads nothing back."""
        bound = self.bound_call(module, near, expression.value) if isinstance(expression, cst.Name) else None
        return bound is not None and (bool(bound.names & ASSIGN_OPS) or method_name(bound.node) in VARIABLE_ASSIGNMENTS)

    def fetched_for_some_steps(self, loop: TrainingLoop) -> list[tuple[cst.Call, cst.BaseExpression, cst.Name]]:
        """Values a TensorFlow 1.x loop's training run fetches every step but reads only on some steps (``_, loss,
        output = sess.run([train_op, loss, out_image])``, with ``output`` read under ``if epoch % save_freq == 0:``,
        itself or through the names computed from it): each with its run, its fetch and its first such read. The
        run copies the value to the host every step, and computes it where the update does not need it."""
        found = []
        for run in loop.session_runs:
            assignment = self.index.assignment_of(run)
            fetches = run.args[0].value if run.args else None
            if loop.throttles(run) or assignment is None or len(assignment.targets) != 1 or not isinstance(
                    assignment.targets[0].target, (cst.Tuple, cst.List)) or not isinstance(fetches, (cst.Tuple,
                                                                                                       cst.List)):
                continue
            targets = [e.value for e in assignment.targets[0].target.elements]
            if len(targets) != len(fetches.elements):
                continue
            for target, fetch in zip(targets, (e.value for e in fetches.elements)):
                if isinstance(target, cst.Name) and target.value != "_" and not self._scalar_fetch(loop.module, fetch) \
                        and not self._is_variable(loop.module, run, fetch, CALL_DEPTH):
                    read = self._read_on_some_steps_only(loop, target.value, assignment)
                    if read is not None:
                        found.append((run, fetch, read))
        return found

    def _scalar_fetch(self, module: ModuleInfo, fetch: cst.BaseExpression) -> bool:
        """Whether a fetch is a number the step computes anyway: a loss the repo differentiates (``minimize(loss)``),
        or what its name says is one (a loss, an accuracy, a summary, the step, the learning rate): copying it costs
        nothing, and a run of its own would compute it again."""
        code = module.node_code(fetch)
        name = code.rsplit(".", 1)[-1].lower()
        return code in self._differentiated or any(word in name for word in SCALAR_FETCH_WORDS)

    @cached_property
    def _differentiated(self) -> frozenset[str]:
        """The code of what the repo's graph code differentiates: ``optimizer.minimize(loss)``,
        ``tf.gradients(loss, params)``, ``compute_gradients(loss)``."""
        return frozenset(site.module.node_code(site.node.args[0].value) for site in self.index.calls
                         if site.node.args and (method_name(site.node) in ("minimize", "compute_gradients")
                                                or "tensorflow.gradients" in site.names))

    def _read_on_some_steps_only(self, loop: TrainingLoop, name: str, binding: cst.Assign) -> cst.Name | None:
        """The first read of ``name`` in the loop's body where every read of it runs only on some steps, counting
        the reads of the names computed from it every step (``output = np.clip(output, 0, 1)``) as its own; None
        where one runs every step (fed back to the graph: a recurrent state, BEGAN's control value; or kept in a
        running total, ``acc_mse = acc_mse * decay + mse``, that every step adds to), or none is made."""
        module, names, derived = loop.module, {name}, {id(binding)}
        grew = True
        while grew:  # the names bound every step from it
            grew = False
            for assign in m.findall(loop.node.body, m.Assign()):
                if id(assign) not in derived and not loop.throttles(assign) and any(
                        n.value in names for n in m.findall(assign.value, m.Name())):
                    derived.add(id(assign))
                    bound = _assigned_names(assign)
                    if any(n.value in bound - names for n in m.findall(assign.value, m.Name())):
                        return None  # a running total (not the value itself rebound): it is used every step
                    grew = grew or bool(bound - names)
                    names |= bound
        reads = []
        for statement in m.findall(loop.node.body, m.SimpleStatementLine() | m.If() | m.For() | m.While()):
            if isinstance(statement, cst.SimpleStatementLine):
                # a computation from it reads it only through what it binds, unless it feeds it to the graph
                scopes = [run for small in statement.body for run in m.findall(small, _GRAPH_RUN)] if any(
                    id(small) in derived for small in statement.body) else [statement]
                reads += [n for scope in scopes for n in m.findall(scope, m.Name()) if n.value in names]
            else:  # a compound statement's own test or iterable
                head = statement.test if isinstance(statement, (cst.If, cst.While)) else statement.iter
                reads += [n for n in m.findall(head, m.Name()) if n.value in names]
        reads = [n for n in reads if not m.matches(module.parent(n), m.AssignTarget())]
        return reads[0] if reads and all(loop.throttles(n) for n in reads) else None

    def _is_variable(self, module: ModuleInfo, near: cst.CSTNode, expression: cst.BaseExpression,
                     depth: int) -> bool:
        """Whether ``expression`` (read where ``near`` is) names a variable (``tf.Variable``, ``tf.get_variable``,
        the global step), bound there or returned by the repo function it was bound from (``global_step, train_op =
        create_train_op(...)``)."""
        bound = self.bound_call(module, near, expression.value) if isinstance(expression, cst.Name) else None
        if bound is None:
            return False
        if bound.names & (VARIABLES | VARIABLE_FACTORIES | GLOBAL_STEPS):
            return True
        return depth > 0 and any(returned is not None and self._is_variable(returned[0], returned[2], returned[2],
                                                                            depth - 1)
                                 for returned in self._returned_by(bound.node, expression))

    def _runs_accumulation(self, run: cst.Call) -> bool:
        """Whether ``run`` fetches ops that add into variables (``accum_grads_op = [a.assign_add(g) for ...]``): a
        gradient accumulation's forward and backward pass, part of the training, whatever else it reads."""
        fetches = argument_value(run, "fetches", 0) if run.args else None
        site = self._call_at.get(id(run))
        if fetches is None or site is None:
            return False
        names = {name.value for name in m.findall(fetches, m.Name())}
        return any(m.findall(value, _ACCUMULATES) for name in names
                   for _, _, value in self.assigned_values(site.module, site.function, cst.Name(name)))

    def _fed_to_a_run(self, loop: TrainingLoop, run: cst.Call) -> bool:
        """Whether what ``run`` returns is fed to a graph run of the code around it, later in the iteration or in
        the next one, through the names it is assigned to and those computed from them: a DQN's targets made from
        the network's Q values, an actor's output fed to its critic, a recurrent policy's state. That run makes an
        input of the step, which no training run could have fetched at the same time."""
        module = loop.module
        bound = _value_bound_names(module, run)
        if not bound:
            return False
        function = self.enclosing_function(module, run)
        scope = function.node.body if function is not None else loop.node.body
        bindings = _loop_bindings(scope)
        updates = dict(bindings)  # and what `target[a] += gamma * q_next[i]` adds in
        for augmented in m.findall(scope, m.AugAssign(target=m.Name() | m.Subscript(value=m.Name()))):
            target = augmented.target if isinstance(augmented.target, cst.Name) else augmented.target.value
            updates[target.value] = [*updates.get(target.value, ()), augmented.value]
        derived = set(bound)
        while grown := {name for name, values in updates.items()
                        if name not in derived and any(_reads_names(value, derived) for value in values)}:
            derived |= grown
        return any(_reads_names(value, derived)
                   for call in m.findall(scope, m.Call(func=m.Attribute(attr=m.Name("run"))))
                   for value in _fed_values(argument_value(call, "feed_dict", 1), bindings))

    def training_run_binding(self, loop: TrainingLoop, read: cst.CSTNode, name: str) -> cst.Call | None:
        """The training run of a TensorFlow 1.x loop whose result ``name`` holds where ``read`` is (the last run
        above it that binds ``name``), where the loop runs it every step (``_, summary = sess.run([train_op,
        merged])``, under no step interval). None where another statement binds ``name`` again between the two (a
        run of an image summary every N steps, into the same name)."""
        binding = [run for run in loop.session_runs if name in _assigned_names(self.index.assignment_of(run))
                   and self._not_below(loop.module, run, read)]
        if not binding or loop.throttles(binding[-1]):
            return None
        module, run = loop.module, binding[-1]
        between = range(module.location(run).end_line + 1, module.location(read).line + 1)
        rebound = any(name in _assigned_names(assign) and module.location(assign).line in between
                      for assign in m.findall(loop.node.body, m.Assign()))
        return None if rebound else run

    def written_summary_kinds(self, loop: TrainingLoop, write: cst.Call) -> set[str] | None:
        """The kinds of summary a TensorFlow 1.x loop writes with ``write`` (``writer.add_summary(summary_str,
        step)``) where the source tells: the summary op its training run fetched into that name, a
        ``tf.summary.scalar/image/...`` or a ``tf.summary.merge([...])`` of those. None where it does not tell
        (``merge_all()`` holds whatever the graph has: see :meth:`summary_kinds`). A ``tf.Summary`` proto built on
        the host (``tf.Summary(value=[tf.Summary.Value(tag="loss", simple_value=loss)])``) holds what its values set:
        no op of the session's run."""
        built = host_built_summary(loop.module, write)
        if built is not None:
            held = {argument.keyword.value for argument in m.findall(built, m.Arg(keyword=m.Name()))}
            return {kind for field, kind in HOST_SUMMARY_FIELDS.items() if field in held} or {"scalar"}
        written = write.args[0].value if write.args else None
        run = self.training_run_binding(loop, write, written.value) if isinstance(written, cst.Name) else None
        fetched = _fetched_into(self.index.assignment_of(run), run, written.value) if run is not None else None
        if fetched is None:
            return None
        return self._summary_op_kinds(loop.module, self.enclosing_function(loop.module, run), fetched, frozenset())

    def _summary_op_kinds(self, module: ModuleInfo, scope: FunctionInfo | None, expression: cst.BaseExpression,
                          seen: frozenset[int]) -> set[str] | None:
        """What a summary op is made of, followed through the names (and ``self.`` attributes) holding it; ``seen``:
        the assignments on the way (``self.d_sum = tf.summary.merge([self.d_sum, ...])`` merges its earlier
        value)."""
        if isinstance(expression, (cst.Name, cst.Attribute)):
            values = [v for v in self.assigned_values(module, scope, expression) if id(v[2]) not in seen]
            # not the merge a branch the defaults skip makes (`if config.G_img_sum:` the generator's images too)
            values = [v for v in values if self.skipped_by_default(v[0], v[0].location(v[2]).line) is None] or values
            found = [self._summary_op_kinds(*value, seen | {id(value[2])}) for value in values]
            return set().union(*found) if found and None not in found else None
        if not isinstance(expression, cst.Call):
            return None
        site = self._call_at.get(id(expression))
        if site is None:
            return None
        if (site.names | self._module_aliases(site)) & SUMMARY_MERGES:  # (`merge_summary` of DCGAN's `ops.py`)
            merged = expression.args[0].value if expression.args else None
            found = [self._summary_op_kinds(module, scope, element.value, seen)
                     for element in getattr(merged, "elements", ())]
            return set().union(*found) if found and None not in found else None
        if site.names & SUMMARY_MERGE_ALL:
            return self._collection_summary_kinds(site)
        kinds = self._summary_kinds_made(site)
        return kinds if kinds and {k for k in kinds if k != PER_TENSOR_HISTOGRAMS} <= SUMMARY_KINDS else None

    def _collection_summary_kinds(self, merge: CallSite) -> set[str] | None:
        """What ``merge_all("dis")`` merges: the summaries its module and the modules near it (see
        :meth:`summary_kinds`) make into that collection (``tf.summary.scalar("loss", loss, ["dis"])``); None for
        ``merge_all()``, or a key no summary names."""
        key = literal(argument_value(merge.node, "key", 0))
        if not isinstance(key, str):
            return None
        near = {id(module) for module in self._summary_neighbours(merge.module)}
        kinds = set()
        for site in self.index.calls:
            if id(site.module) in near and any(n.startswith(SUMMARY_OP_PREFIXES) for n in site.names) and any(
                    isinstance(arg.value, (cst.List, cst.Tuple)) and key in (
                        literal(e.value) for e in arg.value.elements) for arg in site.node.args):
                kinds |= self._summary_kinds_made(site)
        return kinds or None

    def summary_kinds(self, module: ModuleInfo) -> set[str]:
        """The kinds of summary (``image``, ``histogram``, ``audio``, ``scalar``..., :data:`PER_TENSOR_HISTOGRAMS`)
        ``module``, a repo module it imports or one importing it (a model class deriving from the base class whose
        loop runs the graph) makes: what a TensorFlow 1.x merged summary fetched there may hold."""
        kinds = self._summary_kinds
        return set().union(*(kinds.get(id(other), ()) for other in self._summary_neighbours(module)))

    def _summary_neighbours(self, module: ModuleInfo) -> list[ModuleInfo]:
        """``module``, the repo modules it imports and those importing it: where the summaries a loop there fetches
        may be made."""
        return [module, *self._imported_modules(module), *self._importers.get(id(module), [])]

    @cached_property
    def _summary_kinds(self) -> dict[int, set[str]]:
        """The kinds of summary each module makes, by module id: one pass over the calls, whatever asks."""
        found: dict[int, set[str]] = {}
        for site in self.index.calls:
            kinds = self._summary_kinds_made(site)
            if kinds:
                found.setdefault(id(site.module), set()).update(kinds)
        return found

    def _summary_kinds_made(self, site: CallSite) -> set[str]:
        """The kinds of summary a call of a summary op makes (``histogram`` of ``tf.summary.histogram``), a
        histogram made per variable or gradient (`for g, v in grads_and_vars:`, or by a helper called there for
        each) as :data:`PER_TENSOR_HISTOGRAMS`: whole weight tensors. A repo module's alias of one counts as the op
        (``image_summary = tf.image_summary`` in a ``try``, ``tf.summary.image`` in its ``except AttributeError``:
        DCGAN's ``ops.py``, star-imported)."""
        aliases = self._module_aliases(site) if any("summary" in name.rpartition(".")[2].lower() and not
                                                    name.startswith(SUMMARY_OP_PREFIXES) for name in site.names) else ()
        kinds = {name.rsplit(".", 1)[-1].removesuffix("_summary") for name in site.names | set(aliases)
                 if name.startswith(SUMMARY_OP_PREFIXES)}
        if "histogram" in kinds and (_repeated(site.module, site.node) or site.function is not None and any(
                _repeated(caller.module, caller.node) for caller in self.callers_of(site.function))):
            kinds = kinds - {"histogram"} | {PER_TENSOR_HISTOGRAMS}
        return kinds

    def _module_aliases(self, site: CallSite) -> frozenset[str]:
        """What a call's name means where it names a module-level alias in a repo module the caller imports
        (``ops.image_summary`` for ``image_summary = tf.summary.image`` there, assigned in each branch of a
        ``try`` that picks the TensorFlow version's name): the names every such assignment binds it to."""
        found: set[str] = set()
        for name in site.names:
            owner, _, attribute = name.rpartition(".")
            for module in self._imported_modules(site.module):
                dotted = module.path.with_suffix("").as_posix().replace("/", ".")
                if dotted != owner and not dotted.endswith("." + owner):  # `ops`, not `loops`
                    continue
                found |= {bound for assign in m.findall(module.tree, m.Assign(targets=[m.AssignTarget(
                    m.Name(attribute))], value=m.Name() | m.Attribute()))
                    if self.enclosing_function(module, assign) is None
                    for bound in module.qualified_names(assign.value)}
        return frozenset(found)

    def _imported_modules(self, module: ModuleInfo) -> list[ModuleInfo]:
        """The repo modules ``module`` imports (by name or with a star): where several share the name (each project
        of a repo with its own ``config.py``), the one Python imports there (:meth:`SourceIndex.nearest`)."""
        names = module.names
        return [imported for name in [*names.aliases.values(), *names.star_imports] for imported in
                self.index.nearest(module, [name], self.index.modules_imported_by(name), lambda found: found)]

    def _modules_imported_from(self, module: ModuleInfo) -> set[int]:
        """The ids of ``module`` and the repo modules it imports, directly or through others."""
        found, pending = {id(module)}, [module]
        while pending:
            for imported in self._imported_modules(pending.pop()):
                if id(imported) not in found:
                    found.add(id(imported))
                    pending.append(imported)
        return found

    @cached_property
    def _importers(self) -> dict[int, list[ModuleInfo]]:
        """The repo modules importing each module, by module id."""
        found: dict[int, list[ModuleInfo]] = {}
        for module in self.index.modules:
            for imported in self._imported_modules(module):
                if imported is not module:
                    found.setdefault(id(imported), []).append(module)
        return found

    def _runs_training_op(self, call: cst.Call) -> bool:
        """``X.run(fetches, ...)`` whose fetches name a training op (see :attr:`_training_op_names`), or the
        training op's own ``run`` (``train_op.run(feed_dict=...)``, in the default session)."""
        if not m.matches(call.func, m.Attribute(attr=m.Name("run"))):
            return False
        receiver = call.func.value
        if isinstance(receiver, cst.Attribute):
            receiver = receiver.attr
        if isinstance(receiver, cst.Name) and receiver.value in self._training_op_names:
            return True
        fetches = argument_value(call, "fetches", 0) if call.args else None
        if fetches is None:
            return False
        if _names_one_of(fetches, self._training_op_names):
            return True
        # `fetches = [train_op, loss]` (or a dict of them), then `sess.run(fetches, feed)`.
        site = self._call_at.get(id(call))
        # `fetch_list = [loss, train_op] + extra_fetches` too: a concatenation of such collections.
        return site is not None and isinstance(fetches, (cst.Name, cst.Attribute)) and any(
            _names_one_of(collection, self._training_op_names)
            for value in self._values_reaching(site.module, site.function, fetches, call)
            for collection in _concatenated_collections(value))

    def _values_reaching(self, module: ModuleInfo, scope: FunctionInfo | None, expression: cst.BaseExpression,
                         near: cst.CSTNode) -> list[cst.BaseExpression]:
        """What ``expression`` holds at ``near``: the last value assigned to it above ``near`` in a block that holds
        ``near`` (``fetch_list`` rebuilt in each branch of an ``if``: the branch's own), else every value assigned to
        it (:meth:`assigned_values`)."""
        values = [value for _, _, value in self.assigned_values(module, scope, expression)]
        line = module.location(near).line
        # value -> its assignment -> that statement -> the block holding it
        reaching = [value for value in values if module.location(value).line <= line
                    and _inside(module, near, module.parent(module.parent(module.parent(value))))]
        return reaching[-1:] or values

    @cached_property
    def _training_op_names(self) -> frozenset[str]:
        """The names and attributes TensorFlow 1.x training ops are bound to: ``train_op = opt.minimize(loss)``,
        ``self.train_op = self.train()`` where ``train`` returns one: what a session that trains fetches."""
        names: set[str] = set()
        returning: set[int] = set()  # functions that return a training op
        for site in self._graph_updates:
            bound = _assigned_names(self.index.assignment_of(site.node))
            names |= bound
            function = site.function
            if function is not None and any(
                    r.value is site.node or (isinstance(r.value, cst.Name) and r.value.value in bound)
                    for r in m.findall(function.node.body, m.Return(value=m.DoNotCare()))):
                returning.add(id(function.node))
        dependents = [site for site in self.index.calls
                      if site.names & {"tensorflow.control_dependencies", "tensorflow.group"} and site.node.args]
        for _ in range(CALL_DEPTH):  # a helper's op, grouped by its caller, returned to another
            known = len(names), len(returning)
            for site in self.index.calls:
                if any(id(f.node) in returning for f in self.callees_of(site)):
                    names |= _assigned_names(self.index.assignment_of(site.node))
            # An op that runs the update first: `with tf.control_dependencies([optimizer_op]): train_op =
            # tf.no_op()` (or `return tf.no_op()`), `train_op = tf.group(optimizer_op, ema_op)`.
            for site in dependents:
                first = site.node.args[0].value
                mentioned = {n.value for n in m.findall(first, m.Name())}
                if isinstance(first, cst.Name):  # `tf.group(*ops)` where `ops = [train_op] + self.extra_ops`
                    mentioned |= {n.value for _, _, value in self.assigned_values(site.module, site.function, first)
                                  for collection in _concatenated_collections(value)
                                  for n in m.findall(collection, m.Name())}
                if not mentioned & names:
                    continue
                within = site.module.parent(site.node) if "tensorflow.group" in site.names else \
                    site.module.parent(site.module.parent(site.node))
                if isinstance(within, cst.With):
                    names |= {name for assign in m.findall(within.body, m.Assign()) for name in _assigned_names(assign)}
                elif isinstance(within, cst.Assign):
                    names |= _assigned_names(within)
                if site.function is not None and (isinstance(within, cst.Return) or isinstance(within, cst.With) and
                                                  m.findall(within.body, m.Return(value=m.DoNotCare()))):
                    returning.add(id(site.function.node))
            if (len(names), len(returning)) == known:
                break
        # `train_op = self.train_op_with_all_variables`: a name the loop picks its training op into.
        picked = m.Assign(value=m.Name(value=m.MatchIfTrue(names.__contains__))
                          | m.Attribute(attr=m.Name(value=m.MatchIfTrue(names.__contains__))))
        for module in self.index.modules:
            if any(name in module.code for name in names):
                names |= {name for assign in m.findall(module.tree, picked) for name in _assigned_names(assign)}
        return frozenset(names)

    def _step_calls(self) -> Iterator[tuple[FunctionInfo, CallSite]]:
        """Each training step with each call that runs it eagerly: a step called from a compiled function (the
        replica step a compiled ``strategy.run`` runs) is traced into it, and the calls of that function run it,
        unless that function runs it in a loop (``for _ in tf.range(steps_per_loop)``: one call, many steps)."""
        for step in self.training_steps:
            callers = self.callers_of(step)
            for call in callers:
                if call.function is None or not self.is_compiled(call.function):
                    yield step, call
                    continue
                if any(c.function is call.function and c.module.enclosing_loop(c.node) is not None for c in callers):
                    continue
                compiled = call.function
                while id(compiled.node) not in self._compiled:
                    compiled = compiled.outer
                yield from ((compiled, outer) for outer in self.callers_of(compiled)
                            if outer.function is None or not self.is_compiled(outer.function))

    def _names_of(self, call: cst.Call) -> frozenset[str]:
        site = self._call_at.get(id(call))
        return site.names if site is not None else frozenset()

    @staticmethod
    def _returns_python_values(function: FunctionInfo) -> bool:
        """Every ``return`` of ``function`` hands back Python values (``loss.numpy()``, ``float(loss)``), not
        tensors: reading them later costs no further sync."""
        returned = [r.value for r in m.findall(function.node.body, m.Return(value=m.DoNotCare()))
                    if r.value is not None]
        values = [e.value for r in returned for e in (r.elements if isinstance(r, cst.Tuple) else [cst.Element(r)])]
        host_value = m.Call(func=m.Attribute(attr=m.Name("numpy") | m.Name("item"))) | m.Call(
            func=m.Name(value=m.MatchIfTrue(VALUE_CONVERSIONS.__contains__))) | _NUMBER
        return bool(values) and all(m.matches(v, host_value) for v in values)

    def side_effects(self, function: FunctionInfo, _callers: frozenset[int] = frozenset()) -> list[SideEffect]:
        """Python in ``function`` that runs only while tracing, or fails, once it is compiled: side effects, variables
        created per call, ``.numpy()``, NumPy and Python's ``random``, Python iteration over tensors, control flow on
        tensors AutoGraph cannot convert; and calls of repo functions that compute with host values
        (``batch = self.buffer.sample()`` drawing with NumPy)."""
        values = _TensorValues(function.module, function.node)
        visit_reading(function.node.body, values)
        visitor = _SideEffects(function.module, values)
        visit_reading(function.node.body, visitor)
        return visitor.found + self._host_calls(self.calls_in(function), _callers | {id(function.node)})

    def host_calls_in(self, module: ModuleInfo, block: cst.CSTNode) -> list[SideEffect]:
        """The calls in ``block`` (an inline training step's tape block) that run repo code computing with host
        values (a model whose ``call`` reads ``.numpy()``): a compiled step could not run them as they are."""
        return self._host_calls([self._call_at[id(c)] for c in m.findall(block, m.Call()) if id(c) in self._call_at],
                                frozenset())

    def _host_calls(self, sites: list[CallSite], callers: frozenset[int]) -> list[SideEffect]:
        """Of ``sites``, those running a repo function (or a repo layer's or model's ``call``) that computes with
        host values, each with the first such place; ``callers``: the functions on the way, not followed again. A
        compiled function's host code runs once, while it is traced: it neither waits for the device each call nor
        keeps a compiled caller from running it."""
        found = []
        for site in sites:
            forward = self._layer_call_methods(site)
            # (`model.call(x)` may name the method its receiver's class resolves to as well)
            for callee in {id(f.node): f for f in [*self.callees_of(site), *forward]}.values():
                if id(callee.node) in callers or self.is_compiled(callee):
                    continue
                host = next((e for e in self.side_effects(callee, callers) if e.on_host), None)
                if host is not None:
                    origin = host.origin or \
                        f"{host.what} ({callee.module.location(host.node).display}) {host.consequence}"
                    found.append(SideEffect(site.node, f"`{site.module.node_code(site.node.func)}(...)`",
                                            f"runs `{callee.name}`, and through it {origin}", True, on_host=True,
                                            in_forward=host.in_forward or any(callee is f for f in forward),
                                            origin=origin))
                    break
        return found

    def host_copy_of_argument(self, module: ModuleInfo, call: cst.Call,
                              holds_tensor: Callable[[cst.BaseExpression], bool]
                              ) -> tuple[FunctionInfo, cst.Call] | None:
        """Where the repo function ``call`` (in ``module``) runs copies to Python what the call passes for one of its
        parameters (``def to_np(t): return t.numpy()``, a logger's ``float(loss)``), on every call of it (not under
        a count); only the arguments ``holds_tensor`` says hold a tensor count."""
        site = self._call_at.get(id(call))
        for callee in self.callees_of(site) if site is not None and site.module is module else ():
            passed = _arguments_by_parameter(call, _called_parameters(callee))
            tensors = {parameter for parameter, argument in passed.items() if holds_tensor(argument)}
            copy = next((read for read in m.findall(callee.node.body, _HOST_COPY_OF_NAME) if _copied_name(read)
                         in tensors and not _on_some_calls_only(callee, read)), None) if tensors else None
            if copy is not None:
                return callee, copy
        return None

    def compiled_forward(self, module: ModuleInfo, block: cst.CSTNode) -> list[FunctionInfo]:
        """The ``call`` methods of the repo models ``block`` (a training step's body, or its tape block) runs, where
        every one of them is compiled (``@tf.function def call(self, x)``): the forward pass already runs as a
        graph, and only the rest of the step is dispatched eagerly. Empty when one of them is not, or none is
        known."""
        methods = [method for call in m.findall(block, m.Call()) if (site := self._call_at.get(id(call))) is not None
                   and site.module is module for method in self._layer_call_methods(site)]
        return list({id(f.node): f for f in methods}.values()) if methods and all(
            self.is_compiled(method) for method in methods) else []

    def _layer_call_methods(self, site: CallSite) -> list[FunctionInfo]:
        """The ``call`` method a call of a repo Keras layer or model instance runs (``model(images)``,
        ``self.rpn_head(features)``, ``model.call(images)``), where the source shows the instance made, or the
        instances the function's callers pass for a parameter."""
        func = site.node.func
        if m.matches(func, m.Attribute(value=m.Name() | m.Attribute(value=m.Name("self")), attr=m.Name("call"))):
            func = func.value  # the instance's own `call`, named
        if isinstance(func, cst.Name):
            bound = self.bound_call(site.module, site.node, func.value)
            bindings = [bound] if bound is not None else []
            if bound is None and site.function is not None and func.value in site.function.params:
                # `def train_step(model, ...)`: the models its callers pass (`train_step(model, ...)` in `main`)
                bindings = [made for caller, given in self._passed_for(site.function, func.value)
                            if isinstance(given, cst.Name)
                            and (made := self.bound_call(caller.module, caller.node, given.value)) is not None]
        elif m.matches(func, m.Attribute(value=m.Name("self"), attr=m.Name())) and site.function is not None and \
                site.function.class_key is not None:
            bindings = self._bindings.get(("attr", site.function.class_key, func.attr.value), [])
        else:
            return []
        return [method for bound in bindings for cls_info in self._classes_constructed(bound)
                if cls_info.key in self._keras_layer_classes for method in self._methods_of_class(cls_info, "call")]

    @cached_property
    def _keras_layer_classes(self) -> set[str]:
        """Repo subclasses of Keras' ``Model`` and ``Layer``: calling an instance runs its ``call``."""
        return self._keras_model_classes | {c.key for c in self.index.subclasses_of("keras.layers.Layer",
                                                                                  "keras.Layer")}

    # -- mapped functions ---------------------------------------------------------------------------------------
    def mapped_function(self, call: cst.Call, module: ModuleInfo, keyword: str = "map_func") -> MappedFunction | None:
        """The function a call (in ``module``) is given to run: what a dataset method runs per element, or the
        Python a ``tf.py_function`` runs (``keyword="func"``), when the source shows it."""
        value = argument_value(call, keyword, 0)
        if isinstance(value, cst.Lambda):
            return MappedFunction(value.body, module, None)
        if isinstance(value, cst.Call) and module.qualified_names(value.func) & PARTIAL:
            value = _wrapped_function(value)  # `functools.partial(self.set_shapes, batch_size)`
        if isinstance(value, cst.Call) and id(value) in self._call_at:  # `from_generator(FrameGenerator(paths))`
            made = self._call_at[id(value)]
            # or the closure a factory returns: `map(parse_function_generator(80))`
            functions = self._instance_methods(made, "__call__") or self._closures_made_by(made, CALL_DEPTH)
            return MappedFunction(functions[0].node.body, functions[0].module, functions[0]) if functions else None
        if not isinstance(value, (cst.Name, cst.Attribute)):
            return None
        scope = self.enclosing_function(module, call)
        # `reshape = lambda x, y: ...`, then `map(reshape)`
        lambdas = [bound for _, _, bound in self.assigned_values(module, scope, value)]
        if len(lambdas) == 1 and isinstance(lambdas[0], cst.Lambda):
            return MappedFunction(lambdas[0].body, module, None)
        names = module.qualified_names(value) if isinstance(value, cst.Name) else \
            module.names.resolve(value, scope.class_key if scope else None)
        functions = self.index.functions_near(module, names)
        if not functions and isinstance(value, cst.Name):
            functions = self._call_methods_of_instance(module, call, value.value)
        if not functions and m.matches(value, m.Attribute(value=m.Name(), attr=m.Name())):
            # `ds.map(dataset.example_fn)`: the method of the repo class `dataset = Dataset(...)` makes
            bound = self.bound_call(module, call, value.value.value)
            functions = self._instance_methods(bound, value.attr.value) if bound is not None else []
        if not functions and isinstance(value, cst.Name):
            functions = self._function_passed_for(scope, value.value)
        return MappedFunction(functions[0].node.body, functions[0].module, functions[0]) if functions else None

    def _function_passed_for(self, function: FunctionInfo | None, parameter: str) -> list[FunctionInfo]:
        """The one repo function every call of ``function`` that passes its ``parameter`` (not rebound in its body)
        passes for it: ``LmdbDataset(lmdb_generator=data.generator_lmdb, ...)``, whose ``__init__`` hands
        ``lmdb_generator`` to ``from_generator``."""
        if function is None or parameter not in _called_parameters(function) or \
                _assignments(function.node.body, m.Name(parameter)):
            return []
        passed = {id(f.node): f for caller, given in self._passed_for(function, parameter)
                  if isinstance(given, (cst.Name, cst.Attribute)) for f in self._functions_meant(caller, given)}
        return list(passed.values()) if len(passed) == 1 else []

    def _call_methods_of_instance(self, module: ModuleInfo, near: cst.CSTNode, name: str) -> list[FunctionInfo]:
        """``__call__`` of the repo class whose instance ``name`` holds, bound by ``name = Class(...)`` in the scope of
        ``near`` (``train_process = RandomProcess(64)`` ... ``ds.map(train_process)``)."""
        bound = self.bound_call(module, near, name)
        return self._instance_methods(bound, "__call__") if bound is not None else []

    def _instance_methods(self, construction: CallSite, method: str) -> list[FunctionInfo]:
        """The method ``method`` of the repo class ``construction`` makes an instance of."""
        return self.index.functions_named(*(f"{n}.{method}" for n in construction.names))

    def calls_run_by(self, function: MappedFunction, depth: int = CALL_DEPTH,
                     every_call: bool = False) -> list[CallSite]:
        """The calls a mapped function makes per element, following the repo functions it calls (``depth`` deep),
        but not into the branches the arguments it is called with skip (``preprocess(image, is_training=False)``
        runs no training augmentation; the mapped function itself takes its parameters' defaults). ``every_call``:
        nor into what a cursor-advancing method does once in a while only (:func:`_now_and_then`)."""
        if function.function is not None:
            found, pending = [], [(function.function, None)]
        else:
            found = [self._call_at[id(call)] for call in m.findall(function.body, m.Call())
                     if id(call) in self._call_at]
            pending = [(f, site) for site in found for f in self._functions_called(site)]
        seen = {id(site.node) for site in found}
        for _ in range(depth):
            following = []
            for callee, site in pending:
                skipped, _ = self._branches_skipped(callee, site)
                for call in self.calls_in(callee):
                    if id(call.node) in skipped or id(call.node) in seen or (
                            every_call and _now_and_then(callee, call.node)):
                        continue
                    seen.add(id(call.node))
                    found.append(call)
                    following += [(f, call) for f in self._functions_called(call)]
            pending = following
        return found

    def _functions_called(self, call: CallSite) -> list[FunctionInfo]:
        """The repo functions ``call`` runs: by name, or, through a name or ``self`` attribute bound to one, what
        was bound (``self.preprocess(x)`` where the constructor was given ``preprocess=self._load``); for a method
        of an object whose class the source does not show (``self.loader.load_img(fn)``, the loader the
        constructor was given), what the call graph says it runs."""
        if (call.names & PYTHON_APPLIERS or method_name(call.node) in POOL_SUBMISSIONS) and call.node.args:
            # `map(partial(self._preprocess_an_image, size=299), paths)`: the function it applies to each item
            applied = call.node.args[0].value
            while isinstance(applied, cst.Call) and applied.args and self._names_of(applied) & PARTIAL:
                applied = applied.args[0].value
            return self.index.functions_named(*self._callables(call.module, call.function, applied, None,
                                                               CALL_DEPTH)) if isinstance(
                applied, (cst.Name, cst.Attribute)) else []
        found = self.index.functions_near(call.module, call.names)
        if found or not isinstance(call.node.func, (cst.Name, cst.Attribute)):
            return found
        found = self.index.functions_named(*self._callables(call.module, call.function, call.node.func, None,
                                                            CALL_DEPTH))
        return found if found or call.names else self.callees_of(call)

    def waits(self, python_function_call: CallSite) -> list[tuple[ModuleInfo, cst.BaseExpression]]:
        """For a ``tf.py_function``/``numpy_function`` call: what in its Python waits (sleep, file or network I/O)
        rather than computes, each with its module: the functions its calls call, or the library function it is
        handed (``tf.numpy_function(np.load, [path], tf.float32)``); empty when it computes, or when the source does
        not show its Python."""
        module = python_function_call.module
        given = argument_value(python_function_call.node, "func", 0)
        if isinstance(given, (cst.Name, cst.Attribute)) and any(
                name.startswith(WAITING_PREFIXES) for name in module.qualified_names(given)):
            return [(module, given)]
        function = self.mapped_function(python_function_call.node, module, "func")
        if function is None:
            return []
        return [(site.module, site.node.func) for site in self.calls_run_by(function)
                if any(name.startswith(WAITING_PREFIXES) for name in site.names)
                or (not site.names and isinstance(site.node.func, cst.Attribute)
                    and site.node.func.attr.value in WAITING_METHODS)]

    def whole_training_in(self, module: ModuleInfo, loop: cst.For | cst.While) -> CallSite | None:
        """A whole training (Keras ``fit`` for several epochs) that every iteration of ``loop`` runs, in its body or
        in what that calls: a search controller's loop fitting a child network per architecture it samples."""
        return next((site for site in self.calls_run_by(MappedFunction(loop.body, module, None))
                     if id(site.node) in self._training_call_nodes and self._whole_training_run(site)), None)

    def generator_work(self, source: Stage) -> list[CallSite] | None:
        """What the Python generator of a ``Dataset.from_generator`` source does per element (:meth:`python_work`);
        None where the generator is not known."""
        generator = self.mapped_function(source.node, source.module, "generator")
        return self.python_work(generator) if generator is not None else None

    def _generator_owner(self, function: MappedFunction) -> FunctionInfo | None:
        """The function a generator source runs: its own, or the generator function a lambda returns the generator
        of (`lambda: data_generator(paths)`: its items)."""
        if function.function is None and id(function.body) in self._call_at:
            made_by = self._functions_called(self._call_at[id(function.body)])
            if len(made_by) == 1 and _yielding_loop(made_by[0]) is not None:
                return made_by[0]
        return function.function

    def lines_walked(self, source: Stage) -> CallSite | None:
        """The ``open(...)`` whose file the generator of a ``from_generator`` source walks, an item per line
        (``with open(path) as f:``, then ``for line in f: ... yield``), if it does: buffered reads, not work
        :meth:`python_work` counts, yet a file read all the same."""
        generator = self.mapped_function(source.node, source.module, "generator")
        owner = self._generator_owner(generator) if generator is not None else None
        loop = _yielding_loop(owner) if owner is not None else None
        if not isinstance(loop, cst.For):
            return None
        walked = loop.iter
        if isinstance(walked, cst.Name):
            opened = [item.item for block in m.findall(owner.node.body, m.With()) for item in block.items
                      if m.matches(item.asname, m.AsName(name=m.Name(walked.value)))]
            walked = next((value for value in [*opened, *_loop_bindings(owner.node.body).get(walked.value, ())]
                           if isinstance(value, cst.Call)), None)
        if isinstance(walked, cst.Call) and owner.module.qualified_names(walked.func) & FILE_OPENERS:
            return self._call_at.get(id(walked))
        return None

    def python_work(self, function: MappedFunction, depth: int = CALL_DEPTH) -> list[CallSite]:
        """Calls of a Python function (a generator, an iterator's ``__next__``) that do real host work for each item
        it hands out: I/O, or array and image computation in NumPy, PIL or OpenCV (not draws of the order samples
        come in). A generator's work before the loop that yields runs once per pass over the data (the indices
        shuffled each epoch, a file opened), not per item, also where a lambda returns the generator; but what
        that loop walks may make its items as it walks. Items taken from a repo object (``self.dataset[i]``) bring
        the work of its class's ``__getitem__``."""
        owner = self._generator_owner(function)
        if owner is not function.function:
            function = MappedFunction(owner.node.body, owner.module, owner)
        loop = _yielding_loop(owner) if owner is not None else None
        sites = []
        if loop is not None:
            function = MappedFunction(loop, function.module, None)
            bindings = _loop_bindings(owner.node.body)
            # What the loop walks may make its items lazily, when walked (`for img, mask in pairs:` over
            # `pairs = self.get_processed_pairs(...)`, a chain of generators that load each image)
            if isinstance(loop, cst.For):
                sites += [site for name in m.findall(loop.iter, m.Name()) for value in bindings.get(name.value, ())
                          for site in self.calls_run_by(MappedFunction(value, function.module, None), depth)]
            # A generator made before the loop and advanced in it (`gen = volgen(paths)`, then `next(gen)` per
            # item) runs its own loop once per item too.
            if depth:
                sites += [site for advanced in m.findall(loop.body, _NEXT_OF_NAME)
                          for value in bindings.get(advanced.args[0].value.value, ())
                          if (made := self._call_at.get(id(value))) is not None
                          for generator in self._functions_called(made) if _yielding_loop(generator) is not None
                          for site in self.python_work(MappedFunction(generator.node.body, generator.module,
                                                                      generator), depth - 1)]
        sites += self.calls_run_by(function, depth, every_call=True)
        if owner is not None and depth:
            sites += [site for getitem in self._items_read(owner, function.body)
                      for site in self.calls_run_by(MappedFunction(getitem.node.body, getitem.module, getitem),
                                                    depth - 1)]
        per_item = function.body.body if isinstance(function.body, (cst.For, cst.While)) else function.body
        filled = bool(m.findall(per_item, m.For() | m.While()))  # (`x = np.zeros(...)`, then a loop over samples)
        # What the yielding loop walks is made once a pass (`for idx in np.array_split(order, n):`), not per item.
        walked = {id(call) for call in m.findall(loop.iter, m.Call())} if isinstance(loop, cst.For) else set()
        # Work under a flag its branch turns off runs once a pass (`if new_epoch: mask = np.arange(n)`).
        return [site for site in sites if (names := self._work_names(site)) and not names <= ORDER_DRAWS
                and id(site.node) not in walked and (filled or not (names <= CONSTANT_ARRAYS or _copies_memory(site)))
                and not self.initialised_once(site.module, site.node)
                and any(name.startswith(WAITING_PREFIXES + PYTHON_COMPUTE_PREFIXES) for name in names)]

    def _items_read(self, method: FunctionInfo, body: cst.CSTNode) -> list[FunctionInfo]:
        """The ``__getitem__`` methods of the repo classes whose objects ``body`` (of ``method``) takes items from
        through an attribute of ``self`` (``self.dataset[i]``, the dataset the constructor was given), or of its own
        class (``yield self[i]``)."""
        attributes = {node.value.attr.value for node in m.findall(body, m.Subscript(
            value=m.Attribute(value=m.Name("self"), attr=m.Name())))}
        own = self.index.class_of(method) if method.class_key is not None and m.findall(
            body, m.Subscript(value=m.Name("self"))) else None
        return [*(self._methods_of_class(own, "__getitem__") if own is not None else ()),
                *(getitem for attribute in sorted(attributes)
                  for cls_info in self._attribute_classes(method.class_key, attribute, CALL_DEPTH)
                  for getitem in self._methods_of_class(cls_info, "__getitem__"))]

    def background_producer(self, function: MappedFunction) -> CallSite | None:
        """Where a Python batch source hands the making of its batches to background workers and takes them from
        a queue (``GeneratorEnqueuer(generator(), use_multiprocessing=True).start(workers=8)``, a
        ``multiprocessing.Pool``, a ``threading.Thread``): the batches are made while the steps run. For a method,
        also where its class starts them (``start()`` runs ``Thread(target=self._run)`` filling the pool
        ``get_batch`` draws from). Not where making a batch waits for the workers' results itself
        (``pool.submit(load_image, path)``, then ``.result()``): they make that batch side by side, not ahead."""
        owner = function.function
        runs = self.calls_run_by(function)
        if any(m.matches(site.node.func, m.Attribute(attr=m.Name("result"))) for site in runs):
            return None
        siblings = [site for method in self.index.methods_of(self.index.class_of(owner))
                    for site in self.calls_in(method)] if owner is not None and owner.class_key is not None else []
        return next((site for site in [*runs, *siblings] if any(
            name.rsplit(".", 1)[-1].endswith("Enqueuer") or name.startswith(BACKGROUND_WORKERS)
            for name in site.names)), None)

    @staticmethod
    def sample_loop(function: FunctionInfo) -> cst.For | cst.While | None:
        """The loop of a function that makes batches in which their samples are made one at a time in Python: a
        ``while``, or a ``for`` over a ``range`` of a computed length (``for i in range(batch_size // num_skips):``),
        calling something each iteration (a random draw, a helper that picks a pair). Not a generator's loop that
        yields (one per kind of data it hands out, `if type == 'train': while True: ... yield`), nor one around it:
        those run once per batch. None when there is none."""
        return next((loop for loop in m.findall(function.node.body, m.For() | m.While())
                     if not m.findall(loop.body, m.Yield()) and m.findall(loop.body, m.Call()) and (
                         isinstance(loop, cst.While) or m.matches(loop.iter, m.Call(func=m.Name("range"))) and not all(
                             isinstance(arg.value, cst.Integer) for arg in loop.iter.args))), None)

    def reading_work(self, function: MappedFunction) -> list[CallSite]:
        """The part of :meth:`python_work` that reads files or decodes and transforms images and signals: work that
        outlasts a step even when it overlaps it (NumPy alone may only slice or stack data held in memory). Followed
        deeper: a ``Sequence``'s ``__getitem__`` reaches its reads through layers of helpers."""
        return [site for site in self.python_work(function, BATCH_MAKER_DEPTH)
                if _reads_or_decodes(self._work_names(site))]

    def _work_names(self, site: CallSite) -> frozenset[str]:
        """What ``site`` calls, by qualified name; for a method of an object a library made, bound to a name or a
        ``self`` attribute where it is called (``self.image = ImageCaptcha(...)``, then
        ``self.image.generate_image(text)``; ``clahe = cv2.createCLAHE(2.0)``, then ``clahe.apply(image)``),
        that object's class and the method."""
        if site.names or not isinstance(site.node.func, cst.Attribute):
            return site.names
        return frozenset(f"{name}.{site.node.func.attr.value}" for call in self._receiver_constructions(site)
                         for name in call.names if not self.index.functions_named(name))

    def only_restates(self, function: MappedFunction) -> bool:
        """Whether the mapped function's TensorFlow ops only restate shapes and types or make constants
        (:data:`METADATA_OPS`): per element it does next to nothing."""
        return self._calls_only(function, METADATA_OPS, METADATA_METHODS)

    def does_light_work(self, function: MappedFunction) -> bool:
        """Whether the mapped function's TensorFlow ops only split, look up, slice, join or restate what an element
        holds, or draw random numbers (:data:`LIGHT_OPS`, ``vocab.lookup(tokens)``): text tokenized into ids, a
        noise vector, no decoding or image work."""
        return self._calls_only(function, LIGHT_OPS, LIGHT_METHODS, light=_draws_a_fixed_size)

    def _calls_only(self, function: MappedFunction, ops: frozenset[str], methods: frozenset[str],
                    light: Callable[[CallSite], bool] = lambda site: False) -> bool:
        """Whether every call the mapped function makes per element is one of ``ops`` or ``methods``, a builtin, a
        call ``light`` accepts, or a repo function (whose own calls are checked with the rest)."""
        calls = self.calls_run_by(function)
        return bool(calls) and all(
            site.names & ops or light(site) or (site.names and all(n.startswith("builtins.") for n in site.names))
            or self.index.functions_named(*site.names)
            or (isinstance(site.node.func, cst.Attribute) and site.node.func.attr.value in methods)
            for site in calls)

    def stateful_calls(self, function: MappedFunction) -> list[CallSite]:
        """Calls that make the mapped function stateful (random ops, Python functions)."""
        return [site for site in self.calls_run_by(function)
                if any(name.startswith(STATEFUL_OP_PREFIXES) and "stateless" not in name for name in site.names)]

    @cached_property
    def _call_at(self) -> dict[int, CallSite]:
        return {id(site.node): site for site in self.index.calls}

    @cached_property
    def hot_functions(self) -> HotFunctions:
        return HotFunctions(self.index, self._call_at, self.compilations, self._functions_handed, self.compiled_losses)

    def hot_context(self, site: CallSite) -> HotContext | None:
        """Why ``site`` runs per element or per step (:class:`HotFunctions`); where a dataset map runs it first, of
        the maps that run it (a parser shared by the training and the evaluation input) one whose pipeline feeds
        more than evaluation, else one whose consumer is out of sight, else the first."""
        first = self.hot_functions.context_of(site)
        if first is None or first.stage is None:
            return first

        def rank(context: HotContext) -> int:
            pipelines = self.pipelines_through(context.stage)
            if any(self.evaluation_use(pipeline) is None for pipeline in pipelines):
                return 0
            return 2 if pipelines else 1
        # (the first of them on a tie: `contexts_of` lists `first` first)
        return min((c for c in self.hot_functions.contexts_of(site) if c.stage is not None), key=rank)

    def evaluation_only(self, stage: Stage) -> str | None:
        """What the pipelines ``stage`` is part of feed, where every one feeds evaluation code
        (:meth:`evaluation_use`): "validation", "evaluation" or "prediction"; None where one may feed training, or
        none is seen consumed."""
        uses = {self.evaluation_use(pipeline) for pipeline in self.pipelines_through(stage)}
        return next(iter(uses)) if len(uses) == 1 else "evaluation" if uses and None not in uses else None

    @cached_property
    def eager_switches(self) -> list[EagerSwitch]:
        """Where the program turns compilation off for training: ``model.compile(..., run_eagerly=True)`` or
        ``model.run_eagerly = True`` (Keras' ``fit`` then runs each step eagerly), a layer of the repo's made
        ``dynamic=True`` (``super().__init__(dynamic=True)``: Keras runs a model holding it eagerly), and
        ``tf.config.run_functions_eagerly(True)`` (every ``tf.function`` runs eagerly)."""
        found = []
        for site in self.index.calls:
            layer = None
            if m.matches(site.node.func, m.Attribute(attr=m.Name("compile"))):
                switch = next((a for a in site.node.args if m.matches(a, m.Arg(keyword=m.Name("run_eagerly")))
                               and self._true_by_default(site, a.value)), None)
            elif site.names & EAGER_SWITCHES:
                switch = next((a for a in site.node.args if m.matches(a.value, m.Name("True"))), None)
            elif m.matches(site.node, _SUPER_INIT) and site.function is not None and \
                    site.function.class_key in self._keras_layer_classes:
                switch = next((a for a in site.node.args if m.matches(a, m.Arg(keyword=m.Name("dynamic")))
                               and self._true_by_default(site, a.value)), None)
                layer = self.index.class_of(site.function)
            else:
                continue
            if switch is not None:
                found.append(EagerSwitch(site.module, site.node, switch, switch.value, site.function,
                                         keras=switch.keyword is not None, call=site, layer=layer))
        for module in self.index.modules:
            for assignment in m.findall(module.tree, _SETS_RUN_EAGERLY):
                if self._truth(module, assignment.value) is True:
                    found.append(EagerSwitch(module, assignment, assignment.value, assignment.value,
                                             self.enclosing_function(module, assignment), keras=True, call=None))
        return found

    def kept_working_by(self, switch: EagerSwitch) -> tuple[FunctionInfo, SideEffect] | None:
        """Code the switch keeps running that compiled it could not: a function it keeps from being compiled that
        computes with host values (``.numpy()``, NumPy on a tensor), with the first such place. For
        ``run_functions_eagerly``, a ``tf.function`` of the repo's that a run may reach; for Keras' ``run_eagerly``
        given to ``compile``, a loss or metric that call hands Keras; for a ``dynamic`` layer, its ``call``."""
        if switch.layer is not None:
            functions = self._methods_of_class(switch.layer, "call")
        elif not switch.keras:  # (the program's own: its module and those it imports, directly or through others)
            program = self._modules_imported_from(switch.module)
            functions = [c.function for c in self.compilations if id(c.function.module) in program]
        else:
            functions = self._functions_passed(switch.call) if switch.call is not None else []
        for function in {id(f.node): f for f in functions}.values():
            if self.reach(function.module, function.node) is Reach.OTHER:
                continue
            effect = next((e for e in self.side_effects(function) if e.breaks_step and e.on_host), None)
            if effect is not None:
                return function, effect
        return None

    def keras_trains_near(self, module: ModuleInfo) -> bool:
        """Whether Keras trains a model (``fit``, ``train_on_batch``) in ``module`` or in a module importing it,
        directly or through others: where ``compile(run_eagerly=True)`` can change how a training step runs."""
        modules, pending = {id(module)}, [module]
        while pending:
            for importer in self._importers.get(id(pending.pop()), ()):
                if id(importer) not in modules:
                    modules.add(id(importer))
                    pending.append(importer)
        return any(id(site.module) in modules and isinstance(site.node.func, cst.Attribute)
                   and site.node.func.attr.value in TRAINING_METHODS for site in self._training_calls)

    def _true_by_default(self, site: CallSite, value: cst.BaseExpression) -> bool:
        """``True``, a module constant or a command-line flag's default that holds it (``ENABLE_EAGER = True``), or
        a parameter of the function making ``site`` that defaults to ``True`` and that no call of the function sets
        otherwise (a trainer's ``def train(..., run_eagerly=True)``, called with its defaults)."""
        if m.matches(value, m.Name("True")):
            return True
        function = site.function
        if not (isinstance(value, cst.Name) and function is not None and value.value in function.params):
            return self._truth(site.module, value) is True
        if not m.matches(_parameter_default(function, value.value), m.Name("True")) or \
                _assignments(function.node.body, m.Name(value.value)):
            return False
        return all(m.matches(_arguments_by_parameter(caller.node, _called_parameters(function)).get(
            value.value, cst.Name("True")), m.Name("True")) for caller in self.callers_of(function))

    @cached_property
    def compiled_losses(self) -> list[FunctionInfo]:
        """Repo functions handed to Keras ``compile`` as a loss or a metric: Keras runs them inside its compiled
        train step (``compile(loss=dice_loss, metrics=[iou])``)."""
        return [function for call in self.keras_compiles for function in self._functions_passed(call)]

    def _functions_handed(self, stage: Stage, expr: cst.BaseExpression) -> list[FunctionInfo]:
        """The repo functions an argument of a dataset stage stands for: by name, a method of the class building
        the stage (``dataset.map(self.parse)``), through a wrapper of one (``functools.partial(make_dataset,
        files)``, written there or bound to a name before), or returned by a repo function (a closure)."""
        names = stage.module.qualified_names(expr) if isinstance(expr, (cst.Name, cst.Attribute)) else frozenset()
        found = self.index.functions_near(stage.module, names)
        if found:
            return found
        builder = self.enclosing_function(stage.module, stage.node)
        if m.matches(expr, m.Attribute(value=m.Name("self"), attr=m.Name())) and builder is not None \
                and builder.class_key is not None:
            return self._methods_of_class(self.index.class_of(builder), expr.attr.value)
        wrapping = self._call_at.get(id(expr)) if isinstance(expr, cst.Call) else \
            self.bound_call(stage.module, stage.node, expr.value) if isinstance(expr, cst.Name) else None
        wrapped = _wrapped_function(wrapping.node) if wrapping is not None else None
        meant = self._functions_meant(wrapping, wrapped) if wrapped is not None else []
        # `dataset, decode = make_dataset_and_decoder(table)`, then `dataset.map(decode)`
        return meant or (self._closures_bound(stage.module, stage.node, expr.value) if isinstance(expr, cst.Name)
                         else [])

    def used_in_its_iteration(self, site: CallSite) -> bool:
        """Whether what ``site`` returns is called in the same iteration of the loop around it: called at once
        (``make_step()(x)``), or bound to a name the loop's body calls outside a loop of its own. Not where the
        iteration keeps it (``steps.append(make_step(...))``) or hands it to code that loops over it (one run over
        the data per iteration: an evaluation per checkpoint). In a training loop it is always in the iteration."""
        loop = site.module.enclosing_loop(site.node)
        if loop is None or self.runs_training_steps(loop):
            return True
        parent = site.module.parent(site.node)
        if isinstance(parent, cst.Call) and parent.func is site.node:
            return True
        if not (isinstance(parent, cst.Assign) and len(parent.targets) == 1
                and isinstance(parent.targets[0].target, (cst.Name, cst.Attribute))):
            return False
        bound = site.module.node_code(parent.targets[0].target)
        return any(site.module.enclosing_loop(call) is loop and site.module.node_code(call.func) == bound
                   for call in m.findall(loop.body, m.Call()))

    def called_in_its_iteration(self, function: FunctionInfo) -> bool:
        """Whether a function defined in a loop's body runs in the iteration that defines it: the loop calls it by
        name (in a loop of its own too), or it runs training steps. Not a handler each iteration hands on for calls
        later (`server.bind(add_unroll)` per host, kept in a list): each of those is traced at its first call."""
        loop = function.module.enclosing_loop(function.node)
        if loop is None or self.runs_training_steps(loop):
            return True
        return any(m.matches(call.func, m.Name(function.name)) for call in m.findall(loop.body, m.Call()))

    @staticmethod
    def initialised_once(module: ModuleInfo, node: cst.CSTNode) -> bool:
        """Whether ``node`` runs only the first time the code around it does: under an ``if`` that tests a name or
        attribute for its unset value and whose body sets it (``if self.step_fn is None: self.step_fn =
        tf.function(...)``, ``if not self._built: ...; self._built = True``), in the same function."""
        parent = module.parent(node)
        while parent is not None and not isinstance(parent, (cst.FunctionDef, cst.Lambda, cst.ClassDef)):
            if isinstance(parent, cst.If) and node is not parent.test and _initialises_once(parent):
                return True
            node, parent = parent, module.parent(parent)
        return False

    def varies_per_iteration(self, expression: cst.BaseExpression, loop: cst.For | cst.While) -> bool:
        """Whether ``expression`` is computed anew from each iteration's own value: it reads what ``loop``'s ``for``
        binds, directly or through the names its body assigns from it (``tf.function(build_generator(res))`` in
        ``for res in resolutions``)."""
        if not isinstance(loop, cst.For):
            return False
        bound = set(_bound_names(loop.target))
        return any(_reads_names(computed, bound) for computed in _computed_from(expression, _loop_bindings(loop.body)))

    def compiles_each_value(self, outer: FunctionInfo, compiled: cst.CSTNode, call: CallSite,
                            loop: cst.For | cst.While) -> bool:
        """Whether ``call``, in ``loop``, has ``outer`` compile a different function from each value the loop goes
        over: ``compiled`` (a ``def`` or a lambda in ``outer``) reads a parameter of ``outer`` for which ``call``
        passes that iteration's value, in a loop that runs no training step (U-Time wraps each loss of a list:
        one function per loss, each traced once)."""
        own = {param.name.value for param in m.findall(compiled, m.Param())}
        read = {name.value for name in m.findall(compiled, m.Name())} - own
        passed = _arguments_by_parameter(call.node, outer.params[self.index.unpassed_parameters(outer):])
        return any(name in read and self.varies_per_iteration(value, loop) for name, value in passed.items()) and \
            not self.runs_training_steps(loop)

    def runs_training_steps(self, loop: cst.For | cst.While) -> bool:
        """Whether ``loop`` is one of :attr:`training_loops`: its iterations run training steps."""
        return any(training.node is loop for training in self.training_loops)

    def enclosing_function(self, module: ModuleInfo, node: cst.CSTNode) -> FunctionInfo | None:
        """The function whose body holds ``node`` (for a ``def``'s own name: the function around that ``def``)."""
        site = self._call_at.get(id(node))
        if site is not None:  # the index knows where its calls are: no parent map to build
            return site.function
        parent = module.parent(node)
        if isinstance(node, cst.Name) and isinstance(parent, cst.FunctionDef):
            parent = module.parent(parent)
        while parent is not None and not isinstance(parent, cst.FunctionDef):
            parent = module.parent(parent)
        return self.index.function_of(parent) if parent is not None else None

    def host_costs(self, function: FunctionInfo, every_call: bool = False,
                   device_waited: bool = False) -> dict[str, cst.CSTNode]:
        """What ``function``'s own calls cost on the host (I/O, printing, syncs, saving...), first call per kind;
        ``every_call``: only what runs on every call of it (see :func:`_on_some_calls_only`), or of a generator, on
        every item it yields; ``device_waited``: the device is waited for before ``function`` runs, so reading a
        value there waits no longer."""
        found: dict[str, cst.CSTNode] = {}
        loop = _yielding_loop(function) if every_call else None
        per_item = {id(call) for call in m.findall(loop, m.Call())} if loop is not None else None
        for site in self.calls_in(function):
            if every_call and (_on_some_calls_only(function, site.node)
                               or (per_item is not None and id(site.node) not in per_item)):
                continue
            what = next((label for name, label in COSTLY_NAMES.items() for callee in site.names
                         if callee == name or (name.endswith(".") and callee.startswith(name))), None)
            if what is None and site.names & KERAS_VALUE_READS and _reads_weights(site):
                what = "copying weights to the host (K.get_value over the model's weights)"
            if what is None and isinstance(site.node.func, cst.Attribute):
                what = COSTLY_METHODS.get(site.node.func.attr.value)
            if what is not None and not (device_waited and what.startswith(HOST_SYNC)):
                found.setdefault(what, site.node)
        return found

    def eager_weight_updates(self, function: FunctionInfo, depth: int = 0) -> CallSite | None:
        """An update of a variable (``w.assign_add(...)``) in a Python loop of ``function`` on every call, or, with
        ``depth``, of a function it calls under no ``if`` (MixMatch's ``ema(model, ema_model)`` and
        ``weight_decay(model)``), where that code runs eagerly (a Keras callback's hook, an eager step): one eager op,
        and its dispatch, per weight each call (a momentum encoder's weights moved towards the encoder's after every
        batch)."""
        if self.runs_compiled(function):
            return None
        # The loop's own items updated (`for var in model.variables: var.assign(...)`, `for key, query in pairs:
        # key.assign_add(...)`), not one variable a step loop sets once an iteration.
        found = next((update for loop in m.findall(function.node.body, m.For())
                      for update in m.findall(loop.body, _VARIABLE_UPDATE)
                      if isinstance(update.func.value, cst.Name)
                      and m.findall(loop.target, m.Name(update.func.value.value))
                      and not _on_some_calls_only(function, update)), None)
        if found is not None:
            return self._call_at.get(id(found))
        # (a call under an `if`: a target network copied every N steps, `if self.time_to_update(self.step):`)
        return next((update for site in self.calls_in(function)
                     if depth and next(_branches_around(function.module, site.node, function.node), None) is None
                     for callee in self.callees_of(site)
                     if (update := self.eager_weight_updates(callee, depth - 1)) is not None), None)

    # -- Keras --------------------------------------------------------------------------------------------------
    @cached_property
    def keras_compiles(self) -> list[CallSite]:
        """``X.compile(...)`` calls with a Keras-only keyword, or on an object the same module calls ``.fit`` on."""
        compiles = []
        for call in self.index.calls:
            if not m.matches(call.node.func, m.Attribute(attr=m.Name("compile"))):
                continue
            keywords = {a.keyword.value for a in call.node.args if a.keyword is not None}
            if keywords & COMPILE_KEYWORDS or self.fitted(call):
                compiles.append(call)
        return compiles

    def fitted(self, call: CallSite) -> bool:
        """Whether the same module calls ``.fit`` on what ``call`` (``X.method(...)``) is a method of."""
        return (id(call.module), call.module.node_code(call.node.func.value)) in self._fitted_receivers

    @cached_property
    def _fitted_receivers(self) -> set[tuple[int, str]]:
        return {(id(c.module), c.module.node_code(c.node.func.value)) for c in self.index.calls
                if m.matches(c.node.func, m.Attribute(attr=m.Name("fit")))}

    @cached_property
    def trains(self) -> bool:
        """The repo trains a model: Keras ``compile``/``fit``/``train_on_batch``, an Estimator, or a custom loop
        that updates weights (a GradientTape alone may only compute gradients of an input, as visualizations do)."""
        return bool(self._training_calls or self.keras_compiles or self.training_loops)

    @cached_property
    def mixed_precision_sites(self) -> list[tuple[ModuleInfo, cst.CSTNode, int | tuple]]:
        """Where the repo turns mixed precision on, or may: a mixed-precision API call, a ``"mixed_..."`` policy
        string, a 16-bit dtype (``tf.bfloat16``, ``"float16"``); with the key of the code around it."""
        found = [(site.module, site.node, self._caller_key(site))
                 for site in self.index.calls_to(*MIXED_PRECISION_APIS)]
        # The text test first: most modules mention no 16-bit type and are not walked.
        for module in self.index.modules:
            if any(word in module.code for word in ("float16", "MIXED_PRECISION", "mixed_precision")):
                mentions = _SixteenBitMentions(module)
                visit_reading(module.tree, mentions)
                found += [(module, node, key) for node, key in mentions.found]
        return found

    @cached_property
    def accelerator_requests(self) -> list[tuple[AcceleratorRequest, int | tuple]]:
        """Where the repo asks for a GPU or TPU (:data:`ACCELERATOR_APIS`, ops placed on one, a session's
        ``gpu_options``, ``CUDA_VISIBLE_DEVICES`` set to some GPU), with the key of the code around it."""
        found = []
        for site in self.index.calls_to(*ACCELERATOR_APIS):
            device = next(ACCELERATOR_APIS[n] for n in site.names if n in ACCELERATOR_APIS)
            found.append((AcceleratorRequest(device, site.module.location(site.node)), self._caller_key(site)))
        for site in self.index.calls_to(DEVICE_PLACEMENT):
            named = [site.module.node_code(a.value).lower() for a in site.node.args
                     if isinstance(a.value, (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString))]
            device = next((d for d in ("gpu", "tpu") if any(d in text for text in named)), None)
            if device is not None:
                found.append((AcceleratorRequest(device, site.module.location(site.node)), self._caller_key(site)))
        found += [(AcceleratorRequest("gpu", settings.module.location(node)), key)
                  for settings in self._gpu_settings for node, key in settings.found]
        return found

    @cached_property
    def _gpu_settings(self) -> list[_GpuSettings]:
        """The GPU settings of the modules that make some (the text test first: most configure no GPU and are not
        walked)."""
        found = []
        for module in self.index.modules:
            if any(setting in module.code for setting in GPU_SETTING_WORDS):
                settings = _GpuSettings(module)
                visit_reading(module.tree, settings)
                found.append(settings)
        return found

    def gpus_hidden_for(self, site: CallSite) -> tuple[ModuleInfo, cst.CSTNode] | None:
        """Where every program that runs ``site`` hides every GPU (``os.environ["CUDA_VISIBLE_DEVICES"] = "-1"``, a
        session of ``tf.ConfigProto(device_count={"GPU": 0})``, whatever the run): it trains on the CPU as written.
        None where one does not, or where some way into ``site`` is unknown."""
        starts = self._starts(self._caller_key(site))
        if not starts or not all(self._is_program(start) for start in starts):
            return None
        found = None
        trains = self._caller_key(site)
        for start in starts:  # each: a weight converter hiding the GPUs says nothing of the training script
            run = {start} | self._program_run(start)
            here = next(((settings.module, node) for settings in self._gpu_settings
                         for node, key in settings.hidden if key in run), None) or next(
                # A session without GPUs hides them from the training only where the code making it goes on to
                # train (a script's `main`), not in a helper with a session of its own (an NMS utility's, a
                # spectrogram computed once on the CPU).
                ((settings.module, node) for settings in self._gpu_settings for node, key in settings.hidden_sessions
                 if key in run and (key == trains or trains in self._program_run(key))), None)
            if here is None:
                return None
            found = found or here
        return found

    def accelerator_for(self, module: ModuleInfo, node: cst.CSTNode) -> AcceleratorRequest | None:
        """Where a program that runs ``node`` asks for a GPU or TPU (:attr:`accelerator_requests`), None when none
        does. When some way into ``node`` starts elsewhere (a function no code is seen to call), any request of the
        repo counts."""
        requests = self.accelerator_requests
        if not requests:
            return None
        function = self.enclosing_function(module, node)
        run = self._run_of(id(function.node) if function is not None else ("module", id(module)))
        ours = [request for request, key in requests if run is None or key in run]
        # the module's own request first: the one a reader of ``node`` finds
        return min(ours, key=lambda request: request.location.path != module.path, default=None)

    def mixed_precision_set_for(self, site: CallSite) -> PrecisionSetting:
        """Whether the programs that run ``site`` (a model's construction, a graph's update) may turn mixed
        precision on; and when they do not, where another program of the repo does, or where theirs does only when
        a flag off by default is set (``if FLAGS.automatic_mixed_precision:``, the run with the defaults computes in
        float32).

        A setting counts when the code around it is part of those programs' run (calls and imports from their
        entry points): a repo of several projects may use 16 bits in one training script and not in another. When
        some way into ``site`` starts elsewhere (a function no code is seen to call), every setting counts but those
        in code no training run reaches (a serving graph cast to float16)."""
        sites = self.mixed_precision_sites
        run = self._run_of(self._caller_key(site)) if sites else None
        ours = [(module, node) for module, node, key in sites
                if (key in run if run is not None else self.reach(module, node) is not Reach.OTHER)]
        opt_in = [(module, node, skipped) for module, node in ours
                  if (skipped := self.skipped_by_default(module, module.location(node).line)) is not None]
        if len(opt_in) < len(ours):
            return PrecisionSetting(True)
        if opt_in:
            module, node, skipped = opt_in[0]
            return PrecisionSetting(False, module.location(node), skipped)
        return PrecisionSetting(False, sites[0][0].location(sites[0][1]) if sites else None)

    @cached_property
    def model_constructions(self) -> list[CallSite]:
        """Where the program builds the models it trains: the construction of the model a training call
        (``model.fit``) trains, or of the models a training step calls (``generator(noise)``, ``self.net(x)``),
        followed into the builder functions that make them; else the first Keras layer or model construction of
        code a training run reaches, in a module that trains when there is one.

        Layers built inside a class (a custom layer's ``__init__``/``build``) are not where the program builds its
        model; instantiating a repo subclass of ``keras.Model`` is."""
        found = {id(c.node): c for trained in self._trained_models.values() for c in trained}
        if found:
            return sorted(found.values(), key=self._source_order)
        # Not where evaluation or inference code (`evaluate_depth()`, a `test.py` script) builds a model to load
        # weights into.
        sites = [c for c in self.index.calls if self._builds_model(c) and not (
            c.function is not None and (c.function.class_key is not None or NOT_TRAINING_NAME.search(c.function.name)))
            and not _named_like_evaluation(c.module.path.stem) and self.reach(c.module, c.node) is not Reach.OTHER]
        if not sites:
            return []
        trains = m.Attribute(attr=m.Name("fit") | m.Name("compile"))
        training_modules = {id(c.module) for c in self.index.calls if m.matches(c.node.func, trains)}
        first = min(sites, key=lambda c: (id(c.module) not in training_modules, *self._source_order(c)))
        return [first]

    @cached_property
    def _trained_models(self) -> dict[str, list[CallSite]]:
        """The constructions of the models training trains, by how: ``"keras"`` (``fit``, ``train_on_batch``, an
        Estimator), ``"compiled"`` (a training step run as a graph), ``"eager"`` (a step run eagerly, or written
        inline in a loop)."""
        found: dict[str, list[CallSite]] = {"keras": [], "compiled": [], "eager": []}
        for kind, construction, _ in self._model_trainings:
            found[kind].append(construction)
        return found

    @cached_property
    def _model_trainings(self) -> list[tuple[str, CallSite, list[CallSite]]]:
        """Each model construction training trains, how (see :attr:`_trained_models`), and the calls that train it
        (the training call, the calls of its step, a loop's inline ``tape.gradient``; none for a step no code is
        seen calling)."""
        found: list[tuple[str, CallSite, list[CallSite]]] = []
        # A step's caller (`agent.update(batch)`) holds no model; the step says which models it trains (below).
        step_calls = {id(c.node) for step in self.training_steps for c in self.callers_of(step)}
        for site in self._training_calls:
            found += [] if id(site.node) in step_calls else [
                ("keras", construction, [site]) for construction in self._constructions_of_receiver(site)]
        for step in self.training_steps:
            kind = "compiled" if self.runs_compiled(step) else "eager"
            callers = self.callers_of(step)
            found += [(kind, construction, callers) for construction in self._constructions_called_by(step)]
        # A step written inline in a loop (a notebook cell's `for batch in ds: with tf.GradientTape() ...`): the
        # models whose weights it differentiates, of those a run with the defaults builds.
        for site in self._inline_gradients:
            for model in _models_differentiated_by(site):
                found += [("eager", construction, [site]) for construction in (
                    self._argument_constructions(site, model, CALL_DEPTH) if isinstance(model, cst.Name) else [])
                    if self.skipped_by_default(construction.module,
                                               construction.module.location(construction.node).line) is None]
        return found

    def trained_on_cpu(self, construction: CallSite) -> cst.Call | None:
        """The ``with tf.device("/cpu:0"):`` (:meth:`cpu_placement`) every call that trains the model built at
        ``construction`` runs under (an NER script building its model, then training it in that scope); None
        where one does not, or where a way it is trained is unknown."""
        calls = [call for _, made, trainers in self._model_trainings if made.node is construction.node
                 for call in trainers or [None]]
        placements = [self.cpu_placement(call.module, call.node) if call is not None else None for call in calls]
        return placements[0] if placements and all(placements) else None

    def _replaced(self, construction: CallSite) -> bool:
        """Whether the name ``construction`` is bound to (``model = Generator()``) is bound again to a call by a
        statement below it in the same block, whatever happens: the first object is dropped (an SRResNet script
        builds its model, then builds it again and fits the second)."""
        assignment = self.index.assignment_of(construction.node)
        module = construction.module
        statement = module.parent(assignment) if assignment is not None else None
        block = module.parent(statement) if statement is not None else None
        names = _assigned_names(assignment)
        siblings = list(getattr(block, "body", ()))
        if not names or statement not in siblings:
            return False
        return any(isinstance(later, cst.SimpleStatementLine) and any(
            isinstance(part, cst.Assign) and isinstance(part.value, cst.Call) and names & _assigned_names(part)
            for part in later.body) for later in siblings[siblings.index(statement) + 1:])

    def keras_on_tf1(self, construction: CallSite) -> CallSite | None:
        """A call of TensorFlow 1.x-only API (:meth:`tf1_call`) in the module that builds the model at
        ``construction`` or in one whose calls train it (a script that gives Keras a ``tf.Session(config=...)``):
        that Keras runs on TensorFlow 1.x, which has no Keras mixed-precision policy. None where one of them runs
        1.x eagerly (:meth:`tf1_eager_execution`): no graph there for 1.x's graph rewrite either."""
        modules = self._building_and_training(construction)
        if any(self.tf1_eager_execution(module) is not None for module in modules):
            return None
        return self.tf1_call(modules)

    def legacy_keras_training(self, construction: CallSite) -> tuple[CallSite, str] | None:
        """A call of multi-backend Keras with a Keras 1 argument (:meth:`legacy_keras_call`) in the module that
        builds the model at ``construction`` or in one whose calls train it (``fit(..., nb_epoch=5)``): that code
        runs on Keras 2.3 or older, and with that argument not on the Keras TensorFlow 2 ships."""
        return next((found for module in self._building_and_training(construction)
                     if (found := self.legacy_keras_call(module)) is not None), None)

    def _building_and_training(self, construction: CallSite) -> list[ModuleInfo]:
        """The module that builds the model at ``construction``, then those whose calls train it."""
        modules = {id(construction.module): construction.module}
        modules.update((id(call.module), call.module) for _, made, trainers in self._model_trainings
                       if made.node is construction.node for call in trainers)
        return list(modules.values())

    def eagerly_trained(self, construction: CallSite) -> bool:
        """Whether only eager steps train the model built at ``construction``: custom steps that are not compiled
        with ``tf.function``, or written inline in a loop; neither Keras nor a compiled step."""
        trained = {kind for kind, constructions in self._trained_models.items()
                   if any(c.node is construction.node for c in constructions)}
        return trained == {"eager"}

    def _constructions_called_by(self, step: FunctionInfo) -> list[CallSite]:
        """The model constructions behind the models a training step calls (``model(x)``, ``self.net(x)``) and
        trains: a model it only runs (a target network, a teacher) is not trained by it."""
        return list({id(c.node): c for group in self._models_called_by(step) for c in group}.values())

    def _models_called_by(self, step: FunctionInfo) -> list[list[CallSite]]:
        """The constructions behind each model a training step calls, one list per model it names (``self.model``,
        ``generator``): those behind one name are alternatives (the branches of a builder, the networks a base
        class's step trains in each subclass), one of them per run."""
        if id(step.node) not in self._step_constructions:
            self._step_constructions[id(step.node)] = self._find_constructions_called_by(step)
        return self._step_constructions[id(step.node)]

    def _find_constructions_called_by(self, step: FunctionInfo) -> list[list[CallSite]]:
        trained = self._differentiated_models(step)
        if trained == {"self"} and step.class_key in self._keras_model_classes:  # a model's own train step
            # (not an instance a script makes and then replaces with another)
            made = self._constructions_of_class(step.class_key)
            return [[c for c in made if not self._replaced(c)] or made]
        calls = self.calls_in(step)
        # The models it calls, and those it differentiates but hands to a loss function to call (a GAN's
        # `d_loss_fn(generator, discriminator, z, x)`): both run in the step.
        models = [(call.node.func, call.node) for call in calls
                  if trained is None or step.module.node_code(call.node.func) in trained]
        called = {step.module.node_code(model) for model, _ in models}
        models += [(cst.parse_expression(name), calls[-1].node) for name in sorted(trained or ()) if calls and
                   name not in called and (name.isidentifier() or name.startswith("self."))]
        groups: dict[str, list[CallSite]] = {}
        for model, near in models:
            found = groups.setdefault(step.module.node_code(model), [])
            if isinstance(model, cst.Name) and model.value in step.params and not _assignments(
                    step.node.body, m.Name(model.value)):  # `train_step(model, ...)`: what the callers pass
                found += self._passed_constructions(step, model.value, CALL_DEPTH)
                continue
            if isinstance(model, cst.Name):
                bound = self.bound_call(step.module, near, model.value)
                bindings = [bound] if bound is not None else []
            elif m.matches(model, m.Attribute(value=m.Name("self"), attr=m.Name())) and _owner_class(step):
                # (a step defined in a method: `self` is the method's instance)
                bindings = self._bindings.get(("attr", _owner_class(step), model.attr.value), [])
                # `self.encoder = encoder`, a parameter of the constructor: what the code making the trainer passes
                found += [construction for _, method, value in self.assigned_values(step.module, step, model)
                          if isinstance(value, cst.Name) and method is not None and value.value in method.params
                          for construction in self._passed_constructions(method, value.value, CALL_DEPTH)]
            else:  # `self.checkpoint.model(x)`: the model given to what holds it, or one its class makes
                found += [construction for holder, value in self._held_values(step.module, near, model)
                          for construction in self._argument_constructions(holder, value, CALL_DEPTH)]
                found += [construction for bound in self._instance_attribute_bindings(step, near, model)
                          for construction in self._constructions_in_call(bound, CALL_DEPTH)]
                continue
            for bound in bindings:  # `model, optimizer = setup()`: the part the step calls
                found += self._constructions_in_call(bound, CALL_DEPTH, _unpacked_position(
                    self.index.assignment_of(bound.node), model.value) if isinstance(model, cst.Name) else None)
        return [list({id(c.node): c for c in found}.values()) for found in groups.values() if found]

    def _instance_attribute_bindings(self, function: FunctionInfo, near: cst.CSTNode,
                                     expression: cst.BaseExpression) -> list[CallSite]:
        """For ``holder.model`` in ``function``, ``holder`` an instance of a repo class that the function makes
        (``yolo = YOLOv4(args)``) or its callers pass for its parameter (``train_step(images, YOLO)``): the calls
        the class binds ``self.model`` to (``self.model = tf.keras.Model(inputs, outputs)`` in its ``__init__``)."""
        if not m.matches(expression, m.Attribute(value=m.Name(), attr=m.Name())):
            return []
        owner = expression.value.value
        if owner in function.params and not _assignments(function.node.body, m.Name(owner)):
            made = [self.bound_call(caller.module, caller.node, argument.value, by_default=True)
                    for caller, argument in self._passed_for(function, owner) if isinstance(argument, cst.Name)]
        else:
            made = [self.bound_call(function.module, near, owner, by_default=True)]
        return [site for instance in made if instance is not None for cls_info in self._classes_constructed(instance)
                for site in self._bindings.get(("attr", cls_info.key, expression.attr.value), ())]

    def _passed_constructions(self, function: FunctionInfo, parameter: str, depth: int) -> list[CallSite]:
        """The model constructions behind what the callers of ``function`` pass for ``parameter``: a name bound to a
        builder's result (``resnet = get_resnet()``, then ``train(resnet, ...)``), followed through callers that
        pass on a parameter of their own."""
        return [construction for caller, argument in self._passed_for(function, parameter)
                for construction in self._argument_constructions(caller, argument, depth)]

    def _argument_constructions(self, site: CallSite, argument: cst.BaseExpression | None,
                                depth: int) -> list[CallSite]:
        """The model constructions behind an argument of the call ``site``: a builder called in place, a name bound
        to a builder's result (the binding a run with the defaults makes: ``if args.mode == "train": model = Model()``
        ``else: model = Model(is_train=False)``), or a parameter of the calling function (what its callers pass)."""
        if isinstance(argument, cst.Call) and id(argument) in self._call_at:
            return self._constructions_in_call(self._call_at[id(argument)], CALL_DEPTH)
        if m.matches(argument, m.Attribute(value=m.Name(), attr=m.Name())):  # `trainer.model`
            return self._constructions_of_attribute(site, argument)
        if not isinstance(argument, cst.Name):
            return []
        if site.function is not None and argument.value in site.function.params:
            return self._passed_constructions(site.function, argument.value, depth - 1) if depth else []
        bound = self.bound_call(site.module, site.node, argument.value, by_default=True)
        return [] if bound is None else self._constructions_in_call(bound, CALL_DEPTH, _unpacked_position(
            self.index.assignment_of(bound.node), argument.value))

    def _constructions_of_class(self, class_key: str) -> list[CallSite]:
        """The calls that construct the repo class ``class_key`` or a subclass: by name, or ``cls(...)`` in a
        classmethod (``ForwardTransformer.from_config(config)``)."""
        keys = {class_key} | {c.key for c in self.index.subclasses_of(class_key)}
        return [site for site in self.index.calls if any(c.key in keys for c in self._classes_constructed(site))
                or any(f.name == "__init__" and f.class_key in keys for f in self.callees_of(site))]

    def _differentiated_models(self, step: FunctionInfo) -> set[str] | None:
        """The models whose weights ``step`` differentiates (``tape.gradient(loss, critic.trainable_variables)``),
        by the code that names them (``critic``); None when a gradient is taken with respect to anything else
        (``params``: which model's, the source does not say here)."""
        found = set()
        sources, watched = self._gradient_sources(step)
        weights = m.Attribute(attr=m.Name(value=m.MatchIfTrue(WEIGHT_ATTRIBUTES.__contains__)))
        for part in sources:
            if part is not None and step.module.node_code(part) in watched:
                continue  # an input the tape watches (SAC's temperature), not a model's weights
            if not m.matches(part, weights):
                return None
            found.add(step.module.node_code(part.value))
        return found or None

    def _source_order(self, site: CallSite) -> tuple:
        """By file, then where the call starts (the index's order: positions would cost every module a pass)."""
        return site.module.path.as_posix(), self._call_order[id(site.node)]

    def model_compute(self, construction: CallSite, alone: bool = False) -> ModelCompute:
        """What the model constructed at ``construction`` computes with: the layers its building code makes,
        followed into the repo helpers and layer classes it calls; with those of the models the same training steps
        train (a GAN's generator and discriminator both run in every step: the device's work is theirs together),
        unless ``alone``."""
        partners = [] if alone else self.trained_with(construction)
        models = {id(construction.node): construction, **{id(c.node): c for c in partners}}
        for model in list(models.values()):
            models.update((id(part.node), part) for part in [*self._models_given(model), *self._models_applied(model)])
        tally = _LayerTally()
        for model in models.values():
            self._count_model(model, 1, LAYER_DEPTH, tally, set())
        if tally.frozen is not None and self._unfrozen_to_train(construction):
            tally.frozen = None
        compute = self._with_dataset_images(tally, [model.module for model in models.values()]).compute(
            len(partners))
        return replace(compute, batch=self._training_batch(list(models.values())))

    def _training_batch(self, models: list[CallSite]) -> int | None:
        """The largest batch the training of the models built at ``models`` is written with, in the modules that
        build or train them: of the pipelines feeding training there, ``fit(batch_size=...)``, Keras image
        iterators; None where one of those is not a literal (or a constant, or a flag's default), or none is seen."""
        modules = {id(c.module) for c in models} | {
            id(call.module) for _, built, calls in self._model_trainings if any(built.node is c.node for c in models)
            for call in calls}
        written = [(stage.module, argument_value(stage.node, "batch_size", 0)) for pipeline in self.index.pipelines()
                   if (id(pipeline.sink.module) in modules or any(id(stage.module) in modules
                                                                  for stage in pipeline.stages))
                   and self.feeds_training(pipeline) and self.evaluation_use(pipeline) is None
                   for stage in pipeline.stages if stage.op == "batch"]
        written += [(site.module, argument_value(site.node, "batch_size")) for site in self.index.calls
                    if id(site.module) in modules and m.matches(site.node.func, m.Attribute(attr=m.Name("fit")))
                    and argument_value(site.node, "batch_size") is not None]
        written += [(site.module, argument_value(site.node, "batch_size", IMAGE_ITERATOR_BATCH_POSITION.get(
            site.node.func.attr.value))) for site in self.training_image_iterators if id(site.module) in modules]
        sizes = [self.integer_literal(module, value, flags=True) for module, value in written]
        return max(size.value for size in sizes) if sizes and None not in sizes else None

    def trained_with(self, construction: CallSite) -> list[CallSite]:
        """The constructions of the other models the training steps that train the model built at ``construction``
        train too (a GAN's other network, a self-supervised backbone's projection head)."""
        models: dict[int, CallSite] = {}
        for step in self.training_steps:
            groups = self._models_called_by(step)
            if any(c.node is construction.node for group in groups for c in group):
                models.update((id(c.node), c) for group in groups for c in group
                              if not any(alternative.node is construction.node for alternative in group))
        return list(models.values())

    def _unfrozen_to_train(self, construction: CallSite) -> bool:
        """Whether code that trains the model built at ``construction`` sets some of it trainable first
        (``model.layers[1].trainable = True``, or ``layer.trainable = True`` in ``for layer in model.layers[-20:]``)
        before a call trains it: fine-tuning the backbone its builder froze."""
        for training in self._training_calls:
            receiver = training.node.func.value if isinstance(training.node.func, cst.Attribute) else None
            if not isinstance(receiver, cst.Name) or not any(
                    c.node is construction.node for c in self._constructions_of_receiver(training)):
                continue
            module = training.module
            scope = training.function.node if training.function is not None else module.tree
            trains_at = module.location(training.node).line
            for setting in m.findall(scope, _SETS_TRAINABLE):
                owner = _root_name(setting.targets[0].target.value)
                loop = module.enclosing_loop(setting)
                over_layers = isinstance(loop, cst.For) and m.matches(loop.target, m.Name(owner)) and bool(
                    m.findall(loop.iter, m.Name(receiver.value)))
                if module.location(setting).line < trains_at and (owner == receiver.value or over_layers):
                    return True
        return False

    def _frozen_for_good(self, backbone: CallSite) -> str | None:
        """The statement freezing the model ``backbone`` makes (``base = EfficientNetB0(...)``): ``base.trainable =
        False``, or ``layer.trainable = False`` over all of ``base.layers``, where nothing sets it trainable again
        (``base.trainable = True`` to fine-tune, or over some of its layers) before the name is bound again (to
        another model than a ``Model`` of its own layers: ``base = Model(base.input, base.get_layer(...).output)``)."""
        assignment = self.index.assignment_of(backbone.node)
        if assignment is None or len(assignment.targets) != 1 or not isinstance(assignment.targets[0].target,
                                                                                 cst.Name):
            return None
        name, module = assignment.targets[0].target.value, backbone.module
        scope = backbone.function.node if backbone.function is not None else module.tree
        start = module.location(backbone.node).line
        def own_layers(value: cst.BaseExpression) -> bool:
            return id(value) in self._call_at and bool(self._call_at[id(value)].names & KERAS_MODEL) and bool(
                m.findall(value, m.Name(name)))

        end = min((line for bound in m.findall(scope, m.Assign(targets=[m.AssignTarget(target=m.Name(name))]))
                   if (line := module.location(bound).line) > start and not own_layers(bound.value)), default=None)
        # `for layer in base.layers[:-20]:` (some of them) binds `layer` to the model's layers
        head_only = self._head_only_layer_loops(module, scope, name, start)
        layer_loops = {id(setting): loop for loop in m.findall(scope, m.For(target=m.Name()))
                       if m.findall(loop.iter, m.Name(name)) or id(loop) in head_only
                       for setting in m.findall(loop.body, m.Assign())}
        frozen = None
        for setting in m.findall(scope, m.Assign(targets=[m.AssignTarget(target=m.Attribute(attr=m.Name(
                "trainable")))], value=m.Name())):
            line = module.location(setting).line
            owner = setting.targets[0].target.value
            loop = layer_loops.get(id(setting))
            value = self._flag_value(backbone.function, setting.value.value)
            bound_here = start < line and (end is None or line < end)
            if value is None or not bound_here or not (m.matches(owner, m.Name(name)) or (
                    loop is not None and m.matches(owner, m.Name(loop.target.value)))):
                continue
            if not value and not self._always_runs(module, backbone.function, setting, scope):
                continue  # a freeze the run may skip, or of some layers (`if "normalization" in layer.name:`)
            if value:
                return None
            if loop is None or id(loop) in head_only or m.matches(loop.iter, m.Attribute(value=m.Name(name),
                                                                                          attr=m.Name("layers"))):
                frozen = frozen or module.node_code(setting).strip()
        return frozen

    def _head_only_layer_loops(self, module: ModuleInfo, scope: cst.CSTNode, backbone: str, start: int) -> set[int]:
        """``id``s of the loops over all but the last ``k`` layers of a model built on the model ``backbone`` names
        (``model = Model(base_model.input, probabilities)``, then ``for layer in model.layers[:-2]:``), where ``k``
        is at most the layers applied between the backbone's line ``start`` and that model (its head: pooling,
        dropout, dense, activation): they are the backbone's layers, and some of the head's."""
        models = {}
        for bound in m.findall(scope, m.Assign(targets=[m.AssignTarget(target=m.Name())], value=m.Call())):
            site = self._call_at.get(id(bound.value))
            if site is not None and site.names & KERAS_MODEL and m.findall(bound.value, m.Name(backbone)):
                models[bound.targets[0].target.value] = module.location(bound).line
        found = set()
        for loop in m.findall(scope, m.For(target=m.Name(), iter=m.Subscript(
                value=m.Attribute(value=m.Name(), attr=m.Name("layers")), slice=[m.SubscriptElement(slice=m.Slice(
                    lower=None, upper=m.UnaryOperation(operator=m.Minus(), expression=m.Integer())))]))):
            model_line = models.get(loop.iter.value.value.value)
            if model_line is None:
                continue
            kept = int(loop.iter.slice[0].slice.upper.expression.value)
            head = sum(1 for applied in m.findall(scope, m.Call(func=m.Call()))
                       if start < module.location(applied).line < model_line)
            if kept <= head:
                found.add(id(loop))
        return found

    def _always_runs(self, module: ModuleInfo, function: FunctionInfo | None, statement: cst.CSTNode,
                     scope: cst.CSTNode) -> bool:
        """Whether ``statement`` (in ``function``, or at module level) runs whenever the code of ``scope`` around it
        does: under no ``if`` there, or only under ones the source says are taken (a flag's literal default, a
        constant; not ``if freeze_backbone:`` where the callers pass their configuration's value)."""
        for branch, part in _branches_around(module, statement, scope):
            test = branch.test
            taken = self._flag_value(function, test.value) if isinstance(test, cst.Name) and function is not None \
                and test.value in function.params else self._truth(module, test)
            if taken is None or taken != (part is branch.body):
                return False
        return True

    def _flag_value(self, function: FunctionInfo | None, name: str) -> bool | None:
        """What ``True``, ``False``, or a parameter of ``function`` that every call leaves at its literal default or
        passes the same literal or module constant (``def create_model(trainable=False)`` called as
        ``create_model()``) stands for; None when the source does not say."""
        if name in ("True", "False"):
            return name == "True"
        parameter = next((p for p in function.node.params.params if p.name.value == name), None) \
            if function is not None else None
        if parameter is None or not m.matches(parameter.default, m.Name("True") | m.Name("False")):
            return None
        default = parameter.default.value == "True"
        passed = {literal(constant.value if isinstance(value, (cst.Name, cst.Attribute)) and (
            constant := self.index.constant(caller.module, value)) is not None else value)
            for caller, value in self._passed_for(function, name)}  # (`create_model(trainable=TRAINABLE)`)
        return default if passed <= {default} else None

    def _models_given(self, construction: CallSite) -> list[CallSite]:
        """The models a model class is constructed with (``GAN(discriminator=discriminator, generator=generator)``,
        each name bound to a model's construction or a library architecture): the class's steps run them; and the
        models whose ends a model is built on (``Model([self.yolo_model.input, *y_true], losses)``, a YOLO's
        training model around its network): it runs their layers."""
        module, node = construction.module, construction.node
        given = [self._bound_model(module, node, arg.value.value) for arg in node.args
                 if isinstance(arg.value, cst.Name)]
        given += [self._model_held(construction, end.value) for arg in node.args
                  for end in m.findall(arg.value, m.Attribute(attr=m.Name("input") | m.Name("inputs") | m.Name("output")
                                                              | m.Name("outputs")))]
        return [site for site in given if site is not None and site.node is not construction.node]

    def _model_held(self, site: CallSite, holder: cst.BaseExpression) -> CallSite | None:
        """The model construction a name (``base``) or an attribute of ``self`` (``self.yolo_model``) holds where
        ``site`` is: the last binding of the attribute in the class, for the latter."""
        if isinstance(holder, cst.Name):
            return self._bound_model(site.module, site.node, holder.value)
        class_key = site.function.class_key if site.function is not None else None
        if class_key is None or not m.matches(holder, m.Attribute(value=m.Name("self"), attr=m.Name())):
            return None
        bound = self._bindings.get(("attr", class_key, holder.attr.value), [])
        built = [c for c in bound if self._constructs_model(c)]
        return self._last(built) if built and all(c.module is site.module for c in built) else None

    def _models_applied(self, construction: CallSite) -> list[CallSite]:
        """The models the function building ``construction`` is given and applies to its tensors (``def
        build_model(encoder, decoder):`` ... ``out = decoder(features)``, ``return Model(inputs, out)``, called as
        ``build_model(vgg, build_decoder(shape))``): the model it builds runs their layers."""
        function = construction.function
        if function is None or not self._constructs_model(construction):
            return []
        applied = {call.func.value for call in m.findall(function.node.body, m.Call(func=m.Name()))
                   if call.func.value in function.params}
        return [model for name in sorted(applied) for model in self._passed_constructions(function, name, CALL_DEPTH)
                if model.node is not construction.node]

    def _image_side(self, module: ModuleInfo, call: cst.Call, declares_input: bool) -> int | None:
        """The smaller side of the images a layer's ``input_shape=(28, 28, 1)`` (or an ``Input``'s ``shape``, a
        placeholder's ``[None, 28, 28, 1]``) declares, when written as numbers or module constants
        (``INPUT_SHAPE = IMAGE_SIZE + (1,)``)."""
        shapes = [argument_value(call, "input_shape")]
        if declares_input:
            shapes += [argument_value(call, "shape"),
                       *(a.value for a in call.args if isinstance(a.value, (cst.List, cst.Tuple, cst.Name)))]
        sizes = next((found for shape in shapes if shape is not None
                      and (found := self._shape_sizes(module, shape, near=call))), [])
        # A placeholder's batch dimension; a Keras `Input`'s shape has none (four sizes there: a volume, or labels
        # of a detector's grid, `(52, 52, 3, 25)`).
        placeholder = (cst.helpers.get_full_name_for_node(call.func) or "").lower().endswith("placeholder")
        if len(sizes) == 4 and (sizes[0] is None or declares_input and placeholder):
            sizes = sizes[1:]
        spatial = sizes[:-1] if len(sizes) == 3 else []
        if spatial and sizes[0] in IMAGE_CHANNELS and sizes[-1] not in IMAGE_CHANNELS:  # channels first
            spatial = sizes[1:]
        return min(spatial) if spatial and None not in spatial else None

    def _shape_sizes(self, module: ModuleInfo, shape: cst.BaseExpression, depth: int = 3,
                     near: cst.CSTNode | None = None) -> list[int | None]:
        """The sizes a shape written as a tuple or list lists (None where one is not a number), following module
        constants and ``+`` of two shapes; with ``near``, the code the shape is written in, also the attributes of
        ``self`` its class or a repo base class sets (``(self._height, self._width, 1)``)."""
        if isinstance(shape, (cst.Name, cst.Attribute)) and depth:
            constant = self.index.constant(module, shape)
            return self._shape_sizes(constant.module, constant.value, depth - 1) if constant is not None else []
        if isinstance(shape, cst.BinaryOperation) and isinstance(shape.operator, cst.Add) and depth:
            left, right = (self._shape_sizes(module, side, depth - 1, near) for side in (shape.left, shape.right))
            return left + right if left and right else []
        return [self._attribute_size(module, near, e.value.attr.value)
                if near is not None and m.matches(e.value, m.Attribute(value=m.Name("self"), attr=m.Name()))
                else self._size(module, e.value) for e in getattr(shape, "elements", ())]

    def _attribute_size(self, module: ModuleInfo, near: cst.CSTNode, attribute: str) -> int | None:
        """The largest number the methods of the class whose code ``near`` is, or of its repo base classes, set
        ``self.<attribute>`` to (``self._height = 28``, or ``= image_height`` of a parameter defaulting to 28);
        None where one of them sets it to what the source does not say."""
        owner = _owner_class(self.enclosing_function(module, near))
        keys = {owner, *self._repo_bases(owner)} if owner is not None else set()
        target = m.Attribute(value=m.Name("self"), attr=m.Name(attribute))
        sizes = [self.integer_value(method.module, value, method) for cls_info in self.index.classes
                 if cls_info.key in keys for method in self.index.methods_of(cls_info)
                 for value in _assignments(method.node.body, target)]
        return max(sizes) if sizes and None not in sizes else None

    def _size(self, module: ModuleInfo, size: cst.BaseExpression) -> int | None:
        if isinstance(size, (cst.Name, cst.Attribute)):
            constant = self.index.constant(module, size)
            module, size = (constant.module, constant.value) if constant is not None else (module, size)
        return int(size.value, 0) if isinstance(size, cst.Integer) else None

    def _built_by(self, model: CallSite) -> list[CallSite]:
        """The calls that build ``model``'s layers: the construction itself for a library architecture."""
        return [model] if _library_architecture(model.names) or self._library_network(model) else \
            self._model_building_calls(model)

    def _model_classes_constructed(self, construction: CallSite) -> list[ClassInfo]:
        """The repo Keras model classes ``construction`` instantiates."""
        return [c for c in self.index.nearest(construction.module, construction.names,
                                              self._classes_named(construction.names), lambda c: c.module)
                if c.key in self._keras_model_classes]

    def _count_model(self, model: CallSite, weight: int, depth: int, tally: _LayerTally, path: set[int]) -> None:
        """Add up the layers the model constructed at ``model`` builds, ``weight`` times each. A repo model class's
        methods count with what the construction passes its ``__init__``, and with the class as the instance their
        ``self.method()`` calls run on: a subclass's override of a layer factory its base's ``__init__`` calls runs,
        not the base's too (the SNGP tutorial's `DeepResNetSNGP`)."""
        classes = [] if _library_architecture(model.names) or self._library_network(model) else \
            self._model_classes_constructed(model)
        if not classes:
            self._count_layers(self._built_by(model), weight, depth, tally, path)
        for cls_info in classes:
            init = next((f for f in self._methods_of_hierarchy(cls_info) if f.name == "__init__"), None)
            arguments = self._arguments_given(model, init.params[self.index.unpassed_parameters(init):]) \
                if init is not None else {}
            given = _Passed(model, arguments, None, init, cls_info)
            for method in self._methods_run_by_framework(cls_info):
                self._count_layers(self.calls_in(method), weight, depth, tally, path | {id(method.node)}, given)

    def _with_dataset_images(self, tally: _LayerTally, modules: list[ModuleInfo]) -> _LayerTally:
        """``tally``, with the side of the images of a small-image dataset the modules load when its inputs declare
        none (a TensorFlow 1.x placeholder shaped by attributes, a model built on the data's shape); not for a known
        architecture, which a program loading MNIST somewhere may train on images of its own size."""
        if tally.image_side is None and tally.application is None:
            loaded = [found for module in modules if (found := self._dataset_image_sides.get(id(module))) is not None]
            if loaded:
                tally.image_side, tally.side_certain = min(loaded)
        return tally

    @cached_property
    def _dataset_image_sides(self) -> dict[int, tuple[int, bool]]:
        """The smallest image side of the small-image datasets each module loads (by module id): the dataset named
        in the loader's name or a string it is given; with whether a load of it is unconditional (not under an
        ``if``: one dataset of several the run may choose)."""
        sides: dict[int, tuple[int, bool]] = {}
        for site in self.index.calls:
            words = [n.lower() for n in site.names] + [
                a.value.raw_value.lower() for a in site.node.args if isinstance(a.value, cst.SimpleString)]
            for dataset, side in SMALL_IMAGE_DATASETS.items():
                if any(dataset in word for word in words):
                    always = next(_branches_around(site.module, site.node), None) is None
                    known_side, known_always = sides.get(id(site.module), (side, always))
                    sides[id(site.module)] = (min(side, known_side), always or known_always)
        return sides

    def _model_building_calls(self, construction: CallSite, depth: int = BUILDER_DEPTH) -> list[CallSite]:
        """The calls that build the model constructed at ``construction``: a repo model class's methods; the layers
        in a ``Sequential([...])`` and its ``.add(...)`` calls; for a functional ``Model(...)`` (or a layer where
        the model is unknown), the calls of its function or module level since the model built before it there
        (a notebook or a script builds several models, one after the other)."""
        classes = self._model_classes_constructed(construction)
        if classes:
            return [call for cls_info in classes for method in self._methods_run_by_framework(cls_info)
                    for call in self.calls_in(method)]
        order = self._call_order
        scope = self.calls_in(construction.function) if construction.function is not None else \
            self._module_level_calls.get(id(construction.module), [])
        scope = sorted(scope, key=lambda c: order[id(c.node)])
        if not self._constructs_model(construction):  # a layer or an Input: the model built from it next
            following = [c for c in scope if order[id(c.node)] > order[id(construction.node)]
                         and self._constructs_model(c)]
            if not following:
                return [c for c in scope if order[id(c.node)] >= order[id(construction.node)]]
            construction = following[0]
        here = order[id(construction.node)]
        nested = {id(n) for n in m.findall(construction.node, m.Call())}
        others = [c for c in scope if id(c.node) not in nested and self._constructs_model(c)]
        in_others = {id(n) for c in others for n in m.findall(c.node, m.Call())}  # another model's own layers
        # `if training: return Model(inputs, heads)` ends the function there: the code after it, up to another
        # return of a model, runs on the other path and builds on the same layers.
        returned = {id(r.value) for r in m.findall(construction.function.node.body, m.Return(value=m.Call()))} \
            if construction.function is not None else set()
        # A model this one applies (`decoder(masked)` in its outputs) is a part of it, built in its window.
        applied = {call.func.value for call in m.findall(construction.node, m.Call(func=m.Name()))}
        parts = {id(c.node) for c in others if _assigned_names(self.index.assignment_of(c.node)) & applied}
        before = max((order[id(c.node)] for c in others if order[id(c.node)] < here and id(c.node) not in returned
                      and id(c.node) not in parts and not self._contains_model(construction, c)), default=-1)
        after = min((order[id(c.node)] for c in others if order[id(c.node)] > here), default=len(order))
        if not construction.names & SEQUENTIAL:
            window = [c for c in scope if before < order[id(c.node)] <= here or id(c.node) in nested]
            # A part's layers count where the model applies it (`_count_layers`), not a second time here.
            in_parts = {id(built.node) for c in others if id(c.node) in parts for built in self._built_by(c)}
            calls = [c for c in scope if id(c.node) in nested or (
                before < order[id(c.node)] <= here and id(c.node) not in in_others | in_parts
                and not self._features_only(c, window))]
            return calls + self._models_built_on(construction, calls, depth)
        adds = [c for c in scope if here < order[id(c.node)] < after and m.matches(
            c.node.func, m.Attribute(attr=m.Name("add")))]
        added = {id(n) for c in adds for arg in c.node.args for n in m.findall(arg, m.Call())}
        calls = [c for c in scope if id(c.node) in nested or id(c.node) in added]
        layers = construction.node.args[0].value if construction.node.args else None
        if isinstance(layers, cst.Name):  # `Sequential(conv_layers)`, the list written elsewhere (module level)
            bound = self.assigned_value(construction.module, construction.function, layers)
            if bound is not None and isinstance(bound[2], (cst.List, cst.Tuple)):
                calls += [self._call_at[id(c)] for c in m.findall(bound[2], m.Call()) if id(c) in self._call_at]
                layers = bound[2]
        # `Sequential([conv_base, ...])`, `model.add(conv_base)`: a model built before
        named = [e.value for e in getattr(layers, "elements", ())] + [a.value for c in adds for a in c.node.args]
        for name in (value for value in named if isinstance(value, cst.Name)):
            bound = self.bound_call(construction.module, construction.node, name.value)
            if bound is not None and depth > 0:
                calls += self._model_building_calls(bound, depth - 1) if self._constructs_model(bound) else [bound]
        return calls

    def _contains_model(self, later: CallSite, model: CallSite) -> bool:
        """Whether the functional model ``later`` is made on the output tensor ``model`` is made with, bound by the
        same call (``model_rpn = Model(inputs, rpn)``, then ``model_all = Model([inputs, rois], rpn + classifier)``),
        or on tensors its layers compute from that one, where the function or script binds it once or not again
        before ``later`` (an FCN's ``vgg = Model(input, block5_pool)``, made to load VGG16's weights, then its head
        ``Conv2D(...)(block5_pool)`` up to ``Model(input, output)``; a CTC model made on a recognizer's output
        ``x``): the layers before ``model`` are ``later``'s too."""
        outputs = argument_value(model.node, "outputs", 1)
        if not isinstance(outputs, cst.Name):
            return False
        bound = self.bound_call(model.module, model.node, outputs.value)
        if bound is None:
            return False
        unchanged = bound is self.bound_call(later.module, later.node, outputs.value)
        if any(m.findall(arg.value, m.Name(outputs.value)) for arg in later.node.args):
            return unchanged
        if later.module is not model.module or (later.function and later.function.node) is not (
                model.function and model.function.node):
            return False
        scope = later.function.node.body if later.function is not None else later.module.tree
        # Not a model of another branch (`if training: ... else:` a model for export): the two are alternatives.
        around_later = {(id(b), id(p)) for b, p in _branches_around(later.module, later.node, scope)}
        if any((id(b), id(p)) not in around_later for b, p in _branches_around(model.module, model.node, scope)):
            return False
        # The output bound once, or (a script's `x = Dense(...)(x)` chain) still the same binding where `later` is.
        bindings = _loop_bindings(scope)
        return (len(bindings.get(outputs.value, [])) == 1 or unchanged) and any(
            m.findall(expression, m.Name(outputs.value)) for arg in later.node.args
            for expression in _computed_from(arg.value, bindings))

    def _models_built_on(self, construction: CallSite, calls: list[CallSite], depth: int) -> list[CallSite]:
        """The building calls of the models a functional model is built on, made before the window of calls that
        build it: ``Model([body.input, *y_true], Lambda(loss)([*body.output, *y_true]))`` with ``body =
        yolo_body(...)`` built first and several models cut from it (a bottleneck model, a last-layer model)."""
        if depth == 0:
            return []
        # `body.output`, or `bert.model.output` (a library's model object holding its Keras model)
        built_on = m.Attribute(value=m.Name() | m.Attribute(value=m.Name()),
                               attr=m.Name(value=m.MatchIfTrue(MODEL_TENSORS.__contains__)))
        inside = {id(c.node) for c in calls}
        # What flows in: the model's own inputs and outputs, and the tensors its layers are applied to
        # (`Lambda(loss)([*body.output, *y_true])`); not a shape read for an Input, nor one layer taken out of it.
        flowing = [arg for call in [construction, *(c for c in calls if isinstance(c.node.func, cst.Call))]
                   for arg in call.node.args]
        found: list[CallSite] = []
        for name in dict.fromkeys(cst.helpers.get_full_name_for_node(attribute.value).split(".")[0]
                                  for arg in flowing for attribute in m.findall(arg, built_on)):
            for bound in self._models_named(construction, name):
                if id(bound.node) not in inside:
                    found += self._model_building_calls(bound, depth - 1) if self._constructs_model(bound) else [bound]
        return found

    def _models_named(self, construction: CallSite, name: str) -> list[CallSite]:
        """The calls that made the model ``name`` holds where ``construction`` builds on it: bound there, or, for a
        parameter of the function around it, bound where its callers pass it (``add_new_last_layer(base_model,
        classes)`` with ``base_model = InceptionV3(include_top=False)``)."""
        bound = self.bound_call(construction.module, construction.node, name)
        function = construction.function
        if bound is not None or function is None or name not in _called_parameters(function):
            return [bound] if bound is not None else []
        return [made for caller, given in self._passed_for(function, name) if isinstance(given, cst.Name)
                and (made := self.bound_call(caller.module, caller.node, given.value)) is not None]

    def _features_only(self, call: CallSite, window: list[CallSite]) -> bool:
        """A pretrained backbone bound to a name that the model's code (``window``: its calls) neither calls
        (``base(x)``) nor builds on (``base.output``): it only computes features beforehand
        (``base.predict(images)``), outside the model."""
        if not _pretrained(call.names):
            return False
        assignment = self.index.assignment_of(call.node)
        if assignment is None or len(assignment.targets) != 1 or not isinstance(assignment.targets[0].target,
                                                                                 cst.Name):
            return False
        name = assignment.targets[0].target.value
        if any(m.matches(c.node.func, m.Name(name)) for c in window):
            return False
        built_on = m.Attribute(value=m.Name(name), attr=m.Name(value=m.MatchIfTrue(BACKBONE_OUTPUTS.__contains__)))
        return not any(m.findall(c.node, built_on) for c in window)

    def _constructs_model(self, site: CallSite) -> bool:
        return bool(site.names & (SEQUENTIAL | KERAS_MODEL)) or any(
            c.key in self._keras_model_classes for c in self._classes_constructed(site))

    @cached_property
    def _module_level_calls(self) -> dict[int, list[CallSite]]:
        by_module: dict[int, list[CallSite]] = {}
        for call in self.index.calls:
            if call.function is None:
                by_module.setdefault(id(call.module), []).append(call)
        return by_module

    def _count_layers(self, calls: list[CallSite], weight: int, depth: int, tally: _LayerTally, path: set[int],
                      passed: _Passed | None = None) -> None:
        """Add up the layers ``calls`` build, ``weight`` times each; ``passed``: what the caller gave the parameters
        of the function these calls are in (a helper's ``filters``). A raw op (``tf.matmul(x, W)``) counts as often
        as its weight variable is made: once where the variable is made in another function (``self.W``, applied
        at every time step of a recurrence)."""
        reapplied: dict[tuple[int, tuple[str, ...]], set[str]] = {}  # see _applies_again
        # Raw ops on a weight of this code already counted (`tf.matmul(x, weight)` in both branches of an `if` on
        # the input's rank): the same weights, one layer.
        weights_applied: set[str] = set()
        # `if residual:` in a helper this call passes `residual=False`
        ruled_out = self._branches_skipped(passed.function, passed.site, passed)[0] \
            if passed is not None and passed.function is not None else set()
        def runs(call: CallSite) -> bool:
            # not in a branch a run with the defaults skips (`if FLAGS.deeper:` a second network)
            return self.skipped_by_default(call.module, call.module.location(call.node).line, 0) is None and \
                id(call.node) not in ruled_out

        for call in calls:
            if not runs(call):
                continue
            names = call.names or self._partial_layer(call) or self._passed_callable(call, passed)
            scope = call.function.node if call.function is not None else None
            if names and any(part is branching.orelse and any(
                    other.names == names and _inside(call.module, other.node, branching.body) and runs(other)
                    for other in calls) for branching, part in _branches_around(call.module, call.node, scope)):
                # `if activations is None: Dense(n) else: Dense(n, activation=...)`: one layer either way (where
                # the first branch is not one the defaults skip: `if FLAGS.dataset == "mnist":` a DCGAN, else the
                # same DCGAN on CelebA)
                continue
            applied = self._applied_model(call) if depth else None
            if applied is not None:  # `x = conv_base(x)`: a model built earlier, applied as a layer
                if id(applied.node) not in path:
                    self._count_model(applied, weight, depth - 1, tally, path | {id(applied.node)})
                continue
            if _library_architecture(names) or _chosen_application(call) or self._library_network(call):
                tally.application = tally.application or call.module.node_code(call.node.func)
                tally.frozen = tally.frozen or self._frozen_for_good(call)
                # `MobileNet(input_shape=...)`, or `input_tensor=Input(shape=...)`
                given = argument_value(call.node, "input_tensor")
                side = self._image_side(call.module, given, declares_input=True) if isinstance(given, cst.Call) \
                    else self._image_side(call.module, call.node, declares_input=False)
                if side is not None:
                    tally.image_side = min(side, tally.image_side or side)
                continue
            if LAYER_REPEATS.intersection(names):
                kind, times, width = self._repeated_layers(call, passed)
                if kind == "convolution":
                    tally.add_convolutions(weight * times, width)
                elif kind == "dense":
                    tally.dense += weight * times
                continue
            framework = [n for n in names if n.startswith(("keras.", "tensorflow."))] or self._framework_bases(names)
            if framework:
                variable = self._weight_variable(call, framework)
                operand = next((WEIGHT_OPERANDS[name] for name in framework if name in WEIGHT_OPERANDS), None)
                if operand is not None and variable is None and self._computed_operand(call, operand):
                    continue  # `tf.matmul(scores, values)`: attention multiplies activations, not a layer's weights
                weight_code = call.module.node_code(argument_value(call.node, *operand) or call.node) \
                    if operand is not None else None
                if weight_code in weights_applied:
                    continue
                if weight_code is not None:
                    weights_applied.add(weight_code)
                module, made = (call.module, call.node) if variable is None else (variable[0], variable[2])
                if variable is not None and variable[1] is not call.function:
                    if id(made) in tally.weight_variables:
                        continue
                    tally.weight_variables.add(id(made))
                    times = 1
                else:
                    times = weight * (LOOP_REPEAT if _repeated(module, made) else 1)
                    # (a raw op's weight made in a loop: how often is not read)
                    tally.depth_guessed = tally.depth_guessed or variable is not None and times > weight
                lasts = {n.rsplit(".", 1)[-1].lower().replace("_", "") for n in framework}
                declares = bool(lasts & INPUT_DECLARATIONS)
                # A layer's `input_shape=` in a subclassed Model's code declares nothing (only a Sequential reads
                # it): the model takes the shape of the images it is called on (ResNet-34 on MNIST, check 71).
                side = self._image_side(call.module, call.node, declares_input=declares) if declares or \
                    _owner_class(call.function) not in self._keras_model_classes else None
                if side is not None:
                    tally.image_side = min(side, tally.image_side or side)
                convolution = "convolution1d" if any("1d" in last for last in lasts) else "convolution"
                if variable is None and times > weight:
                    written = self._made_in_written_loop(call, framework, made, convolution if lasts & (
                        CONVOLUTION_LAYERS) else "recurrent" if lasts & RECURRENT_LAYERS else "dense")
                    tally.depth_guessed = tally.depth_guessed or written is None
                    times = weight * (written if written is not None else LOOP_REPEAT)
                # a 1-wide 1-D convolution is a dense layer at every position (xDeepFM's compressed interactions)
                pointwise = convolution == "convolution1d" and m.matches(self._layer_argument(
                    call, "kernel_size", 2 if any(n.startswith(TF1_FUNCTIONAL_LAYERS) for n in framework) else 1)
                    if variable is None else _variable_shape(*variable[::2]), _ONE_WIDE)
                if lasts & CONVOLUTION_LAYERS and (pointwise or self._convolves_embeddings(call)):
                    if not self._narrow(call, framework, "filters", "dense", passed, variable):
                        tally.dense += times
                elif lasts & CONVOLUTION_LAYERS and not self._narrow(call, framework, "filters", convolution,
                                                                     passed, variable):
                    tally.add_convolutions(times, self._width(call, framework, "filters", passed, variable))
                elif lasts & RECURRENT_LAYERS:
                    # Counted only where the source says how wide: recurrent models take their width from
                    # configurations, and most are narrower than a recurrent layer worth counting.
                    width = self._width(call, framework, "units", passed, variable) or 0
                    if width >= NARROW_WIDTH["recurrent"]:
                        tally.dense += times * max(DENSE_LAYERS[last] for last in lasts & RECURRENT_LAYERS) * (
                            WIDE_FACTOR if width >= WIDE_UNITS else 1)
                elif lasts & DENSE_LAYERS.keys() and self._in_recurrent_cell(call):
                    # A repo's own RNN cell multiplies by its weights at every time step: counted as a recurrent
                    # layer is, only where the source says it is wide enough.
                    width = self._width(call, framework, "units", passed, variable) or 0
                    if width >= NARROW_WIDTH["recurrent"]:
                        tally.dense += times
                elif lasts & DENSE_LAYERS.keys() and not self._narrow(call, framework, "units", "dense", passed,
                                                                        variable) and not (
                        "multiheadattention" in lasts and self._narrow_attention(call, passed)):
                    tally.dense += times * max(DENSE_LAYERS[last] for last in lasts & DENSE_LAYERS.keys())
                continue
            if depth == 0 or m.matches(call.node, _REAPPLIES_VARIABLES):
                continue
            instance = passed.instance if passed is not None and m.matches(
                call.node.func, m.Attribute(value=m.Name("self"), attr=m.Name())) else None
            callees = self._methods_of_instance(instance, call.node.func.attr.value) if instance is not None else []
            callees = callees or self.index.nearest(call.module, names, self.index.callees(names),
                                                    lambda c: c[0].module) or [
                (f, self.index.unpassed_parameters(f)) for f in self.callees_of(call)]
            if not callees and call.names:  # a name bound to a function (`Generator, D = pick_networks()`)
                chosen = self._passed_callable(call, passed)
                callees = self.index.nearest(call.module, chosen, self.index.callees(chosen), lambda c: c[0].module)
            if not callees and isinstance(call.node.func, cst.Call) and id(call.node.func) in self._call_at:
                # `block_fn(filters=64)(x)`: the closure returned by the factory a parameter holds
                factories = self._passed_callable(self._call_at[id(call.node.func)], passed)
                callees = [(closure, 0) for factory, _ in self.index.callees(factories)
                           for closure in self._functions_returned_alone.get(id(factory.node), [])]
            known_before = tally.application
            for callee, skipped in callees:
                if self._applies_again(call, callee, reapplied) or self._applies_object_made_here(call, callee):
                    continue
                arguments = self._arguments_given(call, callee.params[skipped:])
                # an `__init__` runs the methods of the class instantiated, which may inherit it (`VGG16(inputs)` runs
                # its own `setup`, which `Network.__init__` calls)
                instantiated = (self._classes_constructed(call) or self._classes_named(
                    frozenset({callee.class_key}))) if callee.name == "__init__" else []
                if any(c.key in self._measuring_classes for c in instantiated):
                    continue  # a metric's networks (KID's pretrained InceptionV3) measure the model and never learn
                methods = [f for c in instantiated for f in self._methods_run_by_framework(c)] or [callee]
                # Multi-GPU towers (`for i in range(num_gpus): conv_net(x, reuse=i > 0)`) apply one network.
                repeats = self._repeat_count(call, passed) if _repeated(call.module, call.node) and \
                    argument_value(call.node, "reuse") is None else 1
                tally.depth_guessed = tally.depth_guessed or repeats is None
                times = weight * (repeats or LOOP_REPEAT)
                given = _Passed(call, arguments, self._factory_passed(call, callee, passed), callee,
                                instantiated[0] if instantiated else instance)
                for function in methods:
                    if id(function.node) not in path:
                        self._count_layers(self.calls_in(function), times, depth - 1, tally,
                                           path | {id(function.node)}, given)
            if known_before is None and tally.application is not None:
                # `backbone = get_backbone()` (a builder of a known architecture), then `backbone.trainable = False`
                tally.frozen = tally.frozen or self._frozen_for_good(call)

    def _applies_object_made_here(self, call: CallSite, callee: FunctionInfo) -> bool:
        """Whether ``call`` applies an object its name holds (``d_cell(inputs, state)``) made in the same function
        (``d_cell = MAC_RNNCell(args)``) by a class whose methods that run by themselves, ``callee`` among them,
        count where it is made: its layers, counted once (an RNN cell unrolled in a loop has one set of weights)."""
        if not isinstance(call.node.func, cst.Name):
            return False
        made = self.bound_call(call.module, call.node, call.node.func.value)
        return made is not None and (made.function and made.function.node) is (call.function and call.function.node) \
            and any(method.node is callee.node for cls_info in self._classes_constructed(made)
                    for method in self._methods_run_by_framework(cls_info))

    def _methods_of_instance(self, instance: ClassInfo, name: str) -> list[tuple[FunctionInfo, int]]:
        """The method ``name`` an instance of ``instance`` runs: its own, else the nearest base's."""
        method = next((f for f in self._methods_of_hierarchy(instance) if f.name == name), None)
        return [(method, self.index.unpassed_parameters(method))] if method is not None else []

    def _repeated_layers(self, call: CallSite, passed: _Passed | None) -> tuple[str | None, int, int | None]:
        """What slim's ``repeat(inputs, repetitions, layer, *args)`` makes: the kind of layer (convolution, dense;
        None for anything else or one narrower than :data:`NARROW_WIDTH`), how many, where the source says, and how
        wide, where it says."""
        args = [arg for arg in call.node.args if arg.keyword is None and not arg.star]
        if len(args) < 4:
            return None, 0, None
        times = self._integer(call.module, args[1].value, passed, call.function)
        lasts = {name.rsplit(".", 1)[-1].replace("_", "").lower() for name in
                 call.module.qualified_names(args[2].value) if name.startswith(("tensorflow.", "tf_slim."))}
        kind = "convolution" if lasts & CONVOLUTION_LAYERS else "dense" if lasts & DENSE_LAYERS.keys() else None
        width = self._integer(call.module, args[3].value, passed, call.function)
        if times is None or kind is None or width is not None and width < NARROW_WIDTH[kind]:
            return None, 0, None
        return kind, times, width

    def _factory_passed(self, call: CallSite, callee: FunctionInfo, passed: _Passed | None) -> _Passed | None:
        """For a closure called where its factory returns it (``_res_conv(filters=64)(x)``), what the factory call
        passed, which the closure reads as free variables (:func:`_enclosing_passed`); else ``passed``."""
        factory_call = self._call_at.get(id(call.node.func)) if isinstance(call.node.func, cst.Call) else None
        factory = callee.outer
        if factory_call is None or factory is None:
            return passed
        return _Passed(factory_call, _arguments_by_parameter(factory_call.node, factory.params), passed, factory)

    def _applies_again(self, call: CallSite, callee: FunctionInfo,
                       seen: dict[tuple[int, tuple[str, ...]], set[str]]) -> bool:
        """Whether ``call`` applies a network function the same code already counted to another input, with the
        same other arguments (``Discriminator(real)``, then ``Discriminator(fake)``: TensorFlow 1.x code sharing
        its variables by name or scope): the same layers, counted once, as a Keras model called twice is. A call on
        what the earlier one returned (``x = block(x, 64)`` twice) stacks new layers. ``seen``: per callee and
        other arguments, the names earlier calls' results were bound to. A constant first argument is no input
        (``Conv2D(16, 3)``, then ``Conv2D(32, 3)``: a helper making a layer of that many filters each time)."""
        args = call.node.args
        if not args or args[0].keyword is not None or args[0].star or m.matches(args[0].value, _LITERAL):
            return False
        key = (id(callee.node), tuple(call.module.node_code(arg) for arg in args[1:]))
        results = _assigned_names(self.index.assignment_of(call.node))
        if key not in seen:
            seen[key] = results
            return False
        first = args[0].value
        chained = isinstance(first, cst.Name) and first.value in seen[key] or bool(m.findall(first, m.Call(
            func=m.MatchIfTrue(lambda func: cst.helpers.get_full_name_for_node(func) == call.module.node_code(
                call.node.func)))))
        seen[key] |= results
        return not chained

    def _made_in_written_loop(self, layer: CallSite, names: list[str], made: cst.CSTNode, kind: str) -> int | None:
        """How often a layer made in a loop is made (see :meth:`_written_loop`), counting only the values wide enough
        when they are the layer's width (``for filters in [32, 64]: Conv2D(filters=filters)``); None for another
        loop."""
        written = self._written_loop(layer.module, layer.function, made)
        if written is None:
            return None
        loop, values = written
        functional = any(n.startswith(TF1_FUNCTIONAL_LAYERS) for n in names)
        width = argument_value(layer.node, "filters" if kind.startswith("convolution") else "units",
                               1 if functional else 0)
        element = loop_element(loop)
        if isinstance(values, int) or element is None or not m.matches(width, m.Name(element)):
            return values if isinstance(values, int) else len(values)
        return sum(not isinstance(value, cst.Integer) or int(value.value) >= NARROW_WIDTH[kind] for value in values)

    def _repeat_count(self, call: CallSite, passed: _Passed | None) -> int | None:
        """How often a loop runs ``call`` (a helper building layers), where the source says (``for i in
        range(num_layers)``, with what the caller passed)."""
        written = self._written_loop(call.module, call.function, call.node, passed)
        if written is None:
            return None
        return written[1] if isinstance(written[1], int) else len(written[1])

    def _written_loop(self, module: ModuleInfo, scope: FunctionInfo | None, node: cst.CSTNode,
                      passed: _Passed | None = None
                      ) -> tuple[cst.For | cst.CompFor, int | list[cst.BaseExpression]] | None:
        """The loop that runs ``node`` and the values it runs over, where the source writes them out: ``for filters
        in [32, 64]:`` (or a name assigned such a list, reversed, sliced, enumerated or zipped with another, which
        runs as often): the values; ``range(3)``: their count (``passed``: what the caller gave the parameters of
        ``scope``). A comprehension is such a loop: ``[Conv2D(32 * 2 ** i, 3) for i in range(layer_depth)]``."""
        loop = _enclosing_comprehension(module, node) or module.enclosing_loop(node)
        values = self._values_looped(module, scope, loop, passed) if isinstance(loop, (cst.For, cst.CompFor)) \
            else None
        return (loop, values) if values is not None else None

    def _values_looped(self, module: ModuleInfo, scope: FunctionInfo | None, loop: cst.For | cst.CompFor,
                       passed: _Passed | None = None) -> int | list[cst.BaseExpression] | None:
        """The values ``loop`` runs over where the source writes them out (see :meth:`_written_loop`): a list's
        items (of a name or a module's constant assigned the list: `for size in Config.cross_layer_size`), or a
        ``range``'s count."""
        values = loop.iter
        zipped = False  # the values of the first list zipped need not be what the loop body uses
        while isinstance(values, (cst.Subscript, cst.Call)) and (isinstance(values, cst.Subscript) or m.matches(
                values.func, m.Name("reversed") | m.Name("enumerate") | m.Name("zip")) and values.args):
            zipped = zipped or m.matches(values, m.Call(func=m.Name("zip")))
            values = values.value if isinstance(values, cst.Subscript) else values.args[0].value
        if isinstance(values, cst.Name):
            bound = self.assigned_value(module, scope, values)
            values = bound[2] if bound is not None else self._parameter_value(scope, values.value, passed)
        elif isinstance(values, cst.Attribute) and (constant := self.index.constant(module, values)) is not None:
            module, values = constant.module, constant.value
        if m.matches(values, m.Call(func=m.Name("range") | m.Name("xrange"))) and 1 <= len(values.args) <= 3 and \
                all(arg.keyword is None and not arg.star for arg in values.args):
            # (`xrange`: Python 2's, in code its users still run: DnCNN's `xrange(2, 16 + 1)`)
            bounds = [self._integer(module, arg.value, passed, scope) for arg in values.args]
            if None in bounds or len(bounds) == 3 and bounds[2] == 0:
                return None
            return len(range(*bounds)) or None
        if isinstance(values, (cst.List, cst.Tuple)) and values.elements:
            return len(values.elements) if zipped else [element.value for element in values.elements]
        return None

    def _items_looped(self, module: ModuleInfo, scope: FunctionInfo | None, loop: cst.For | cst.CompFor, name: str,
                      passed: _Passed | None) -> list[cst.BaseExpression] | None:
        """The values the loop binds ``name`` to where the source writes them all out: the items of the list its
        part of the iterable is (:func:`loop_iterable`: ``for i, (nf, ks) in enumerate(zip(num_fil, kern_sz))``),
        or of every list a name for it is assigned (``num_fil = [10, 10, 10]`` in one branch of ``if style ==
        "conv01":``, ``[5, 5, 5, 5]`` in another)."""
        iterable = loop_iterable(loop, name)
        if isinstance(iterable, cst.Name):
            lists = [assigned for _, _, assigned in self.assigned_values(module, scope, iterable)] or [
                self._parameter_value(scope, iterable.value, passed)]
        else:
            lists = [iterable]
        if not lists or not all(isinstance(listed, (cst.List, cst.Tuple)) and listed.elements for listed in lists):
            return None
        return [element.value for listed in lists for element in listed.elements]

    def _parameter_value(self, scope: FunctionInfo | None, name: str, passed: _Passed | None
                         ) -> cst.BaseExpression | None:
        """What the parameter ``name`` of ``scope`` holds: what the caller ``passed``, else what its one call
        passes, else its default where no call passes it (``hidden_dims=[32, 32]``, and every ``Model(...)`` leaves
        it out); None where calls differ."""
        if scope is None or name not in scope.params:
            return None
        if passed is not None and name in passed.arguments:
            return passed.arguments[name]
        parameters = _called_parameters(scope)
        callers = self.callers_of(scope)
        given = [arguments[name] for caller in callers
                 if name in (arguments := _arguments_by_parameter(caller.node, parameters))]
        if given:
            return given[0] if len(callers) == 1 else None
        return _parameter_default(scope, name)

    def _applied_model(self, call: CallSite) -> CallSite | None:
        """The model ``call`` applies, when it calls a name bound to one (``conv_base = VGG16(include_top=False)``,
        then ``conv_base(x)``)."""
        func = call.node.func
        return self._bound_model(call.module, call.node, func.value) if isinstance(func, cst.Name) else None

    def _bound_model(self, module: ModuleInfo, near: cst.CSTNode, name: str) -> CallSite | None:
        """The construction ``name`` holds where ``near`` is, when it is a model's or a library architecture's."""
        bound = self.bound_call(module, near, name)
        return bound if bound is not None and (
            _library_architecture(bound.names) or self._constructs_model(bound)) else None

    def _framework_bases(self, names: frozenset[str]) -> list[str]:
        """The Keras convolution or dense layers the repo classes ``names`` refers to extend (``class
        StandardizedConv2D(Conv2D)``): an instance is one of those."""
        return [base for base in self._inherited_bases(names) if base.startswith("keras.layers.") and base.rsplit(
            ".", 1)[-1].lower() in CONVOLUTION_LAYERS | DENSE_LAYERS.keys()]

    def _in_recurrent_cell(self, call: CallSite) -> bool:
        """``call`` is in a method of a repo class extending an RNN cell (``class CoupledInputForgetGateLSTMCell(
        rnn_cell_impl.RNNCell)``), which a recurrence applies at every time step."""
        owner = _owner_class(call.function)
        return owner is not None and any(base.rsplit(".", 1)[-1].lower().endswith("rnncell")
                                         for base in self._inherited_bases(frozenset({owner})))

    def _inherited_bases(self, names: frozenset[str]) -> list[str]:
        """The bases of the repo classes ``names`` refers to, and of the repo classes those extend, in turn."""
        bases, pending, seen = [], self._classes_named(names), set()
        while pending:
            cls_info = pending.pop()
            if cls_info.key in seen:
                continue
            seen.add(cls_info.key)
            bases += cls_info.bases
            pending += self._classes_named(cls_info.bases)
        return bases

    def _partial_layer(self, call: CallSite) -> frozenset[str]:
        """What ``conv(x, 64)`` calls when ``conv = functools.partial(slim.conv2d, activation_fn=None)`` (or a
        partial of such a partial): the names of the function the partials wrap (leading arguments stay where the
        call puts them)."""
        site, name = call, call.node.func
        for _ in range(CALL_DEPTH):
            bound = self.bound_call(site.module, site.node, name.value) if isinstance(name, cst.Name) else None
            wrapped = _wrapped_function(bound.node) if bound is not None and bound.names & PARTIAL else None
            if wrapped is None:
                return frozenset()
            names = bound.module.qualified_names(wrapped)
            if any(n.startswith(TENSOR_APIS) for n in names):
                return names
            site, name = bound, wrapped
        return frozenset()

    def _passed_callable(self, call: CallSite, passed: _Passed | None) -> frozenset[str]:
        """What ``block_fn(...)``, ``MODELS[name](...)`` or ``self.generator(...)`` calls (a parameter, a table, an
        attribute assigned a function): see :meth:`_callables`."""
        func = call.node.func
        return self._callables(call.module, call.function, func, passed, CALL_DEPTH) if isinstance(
            func, (cst.Name, cst.Subscript)) or m.matches(func, m.Attribute(value=m.Name("self"))) else frozenset()

    def _callables(self, module: ModuleInfo, scope: FunctionInfo | None, expression: cst.BaseExpression,
                   passed: _Passed | None, depth: int) -> frozenset[str]:
        """The names of the functions or classes ``expression`` (in ``scope``) may be: for a parameter, what the
        caller passes (``passed``, else what any caller passes), followed through callers that pass on their own
        parameter, else its default (``block_fn=_residual_block_basic``); through tables written in the code
        (``model_params[depth]["block"]``)."""
        enclosing = _enclosing_passed(scope, expression, passed)
        if enclosing is not None:
            return self._callables(module, scope.outer, expression, enclosing, depth)
        if isinstance(expression, cst.Name) and scope is not None and scope.outer is not None and \
                expression.value in scope.outer.params and expression.value not in scope.params and \
                not _assignments(scope.node.body, m.Name(expression.value)):
            # `def build_model_fn(model): def model_fn(features): model(features)`: what the callers pass
            return self._callables(module, scope.outer, expression, None, depth)
        if isinstance(expression, cst.Name) and scope is not None and expression.value in scope.params and depth:
            if passed is not None and expression.value in passed.arguments:
                given = [(passed.site, passed.arguments[expression.value], passed.outer)]
            elif passed is not None and passed.function is scope:
                given = []  # the call leaves it to its default
            else:
                given = [(caller, argument, None) for caller, argument in self._passed_for(scope, expression.value)]
            default = _parameter_default(scope, expression.value)
            if not given and default is not None:
                return self._callables(module, scope, default, None, depth - 1)
            return frozenset().union(*(self._callables(site.module, site.function, argument, outer, depth - 1)
                                       for site, argument, outer in given))
        names: set[str] = set()
        for owner, where, entry in self._table_entries(module, scope, expression, TABLE_DEPTH):
            if isinstance(entry, cst.Name) and where is not None and entry.value in where.params and depth and \
                    entry is not expression:  # `self.transform = transform`: what the constructor is given
                names |= self._callables(owner, where, entry, None, depth - 1)
            elif isinstance(entry, (cst.Name, cst.Attribute)):  # `self._process_sample`: the class's method
                names |= owner.qualified_names(entry) or owner.names.resolve(entry, _owner_class(where))
            elif isinstance(entry, cst.Call) and id(entry) in self._call_at and depth:
                # `model = resnet_v1(50)`: the closure the factory returns (`def model(inputs): ...; return model`)
                names |= {closure.key for closure in self._closures_made_by(self._call_at[id(entry)], depth - 1)}
        return frozenset(names)

    def _closures_made_by(self, site: CallSite, depth: int) -> list[FunctionInfo]:
        """The functions a call of a factory returns: the closures it defines and returns, or those of the factory
        it returns a call of (``return resnet_v1_generator(block, layers)``)."""
        found: list[FunctionInfo] = []
        for factory in self.callees_of(site):
            found += self._functions_returned_alone.get(id(factory.node), [])
            for returned in m.findall(factory.node.body, m.Return(value=m.Call())) if depth else ():
                inner = self._call_at.get(id(returned.value))
                found += self._closures_made_by(inner, depth - 1) if inner is not None else []
        return found

    def _table_entries(self, module: ModuleInfo, scope: FunctionInfo | None, expression: cst.BaseExpression,
                       depth: int) -> list[tuple[ModuleInfo, FunctionInfo | None, cst.BaseExpression]]:
        """What ``expression`` may be when it looks up tables written in the code, with the module and function
        each is written in: for ``MODELS[name]``, every value of the dict ``MODELS`` (a module constant, of another
        module too); for ``params["block"]`` where ``params = model_params[depth]``, each inner dict's
        ``"block"``; for a name or ``self.attribute``, each value assigned to it; else ``expression`` itself."""
        if isinstance(expression, cst.Subscript) and len(expression.slice) == 1 and \
                isinstance(expression.slice[0].slice, cst.Index) and depth:
            key = expression.slice[0].slice.value
            return [(owner, where, element.value)
                    for owner, where, table in self._table_entries(module, scope, expression.value, depth - 1)
                    if isinstance(table, cst.Dict) for element in table.elements
                    if isinstance(element, cst.DictElement) and (not isinstance(key, cst.SimpleString) or (
                        isinstance(element.key, cst.SimpleString)
                        and element.key.evaluated_value == key.evaluated_value))]
        bound = self.assigned_values(module, scope, expression) if depth else []
        if not bound and depth and isinstance(expression, cst.Name):  # `Generator, Discriminator = networks()`
            site = self.bound_call(module, expression, expression.value)
            bound = [(site.module, site.function, site.node)] if site is not None else []
        if not bound and depth and isinstance(expression, (cst.Name, cst.Attribute)):
            constant = self.index.constant(module, expression)
            bound = [(constant.module, None, constant.value)] if constant is not None else []
        if bound:
            return [entry for owner, where, value in bound
                    for returned in self._returned_by(value, expression)
                    for entry in self._table_entries(*(returned or (owner, where, value)), depth - 1)]
        return [(module, scope, expression)]

    def _returned_by(self, value: cst.BaseExpression, name: cst.BaseExpression
                     ) -> list[tuple[ModuleInfo, FunctionInfo, cst.BaseExpression] | None]:
        """What the repo function a name was bound from returns for it (``Generator, Discriminator =
        choose_networks()``, which does ``return GoodGenerator, GoodDiscriminator``): each returned expression, at
        the name's place in the tuple, with where it is written; ``[None]`` when ``value`` is no such call."""
        site = self._call_at.get(id(value)) if isinstance(value, cst.Call) else None
        if site is None or not isinstance(name, cst.Name):
            return [None]
        position = _unpacked_position(self.index.assignment_of(value), name.value)
        found: list[tuple[ModuleInfo, FunctionInfo, cst.BaseExpression] | None] = []
        for callee in self.callees_of(site):
            for returned in m.findall(callee.node.body, m.Return(value=m.Name() | m.Attribute() | m.Tuple())):
                value_returned = returned.value
                if isinstance(value_returned, cst.Tuple):
                    elements = value_returned.elements
                    if position is None or position >= len(elements):
                        continue
                    value_returned = elements[position].value
                if isinstance(value_returned, (cst.Name, cst.Attribute)):
                    found.append((callee.module, callee, value_returned))
        return found or [None]

    def _narrow(self, layer: CallSite, names: list[str], keyword: str, kind: str, passed: _Passed | None,
                variable: tuple[ModuleInfo, FunctionInfo | None, cst.Call] | None) -> bool:
        """The layer's width (``units``, ``filters``) is a number below :data:`NARROW_WIDTH`; ``names``: what the
        layer call is (through a partial alias too). TensorFlow 1.x's functional layers take the input first
        (``tf.layers.conv2d(x, 32, 5)``, slim's ``num_outputs``); its raw ops take a weight ``variable``, whose
        last dimension is the width (``tf.matmul(x, W)``, ``tf.nn.conv2d(x, kernel, ...)``)."""
        number = self._width(layer, names, keyword, passed, variable)
        if number is None:
            # `Dense(num_classes)`: the data's class count, which no source line says; a classifier's output, not a
            # width chosen for capacity (a vocabulary's softmax is named so, and counts).
            width = _width_argument(layer, names, keyword)
            named = width.attr if isinstance(width, cst.Attribute) else width
            return isinstance(named, cst.Name) and bool(CLASS_COUNT_NAME.search(named.value))
        return number < NARROW_WIDTH[kind]

    def _narrow_attention(self, layer: CallSite, passed: _Passed | None) -> bool:
        """An attention layer works at the width of the model it is in: narrow where its heads together are
        (``MultiHeadAttention(num_heads=2, key_dim=32)``), or where the block that makes it makes only narrow
        feed-forward layers (a time-series transformer's ``Conv1D(filters=4, kernel_size=1)``): its projections
        map the model's width, not ``key_dim * num_heads``, and a block's feed-forward is wider than that."""
        heads, key_dim = (self._integer(layer.module, argument_value(layer.node, keyword, position), passed,
                                        layer.function) for keyword, position in (("num_heads", 0), ("key_dim", 1)))
        if heads is not None and key_dim is not None and heads * key_dim < NARROW_WIDTH["dense"]:
            return True
        widths = []
        for sibling in self.calls_in(layer.function) if layer.function is not None else ():
            lasts = {n.rsplit(".", 1)[-1].lower() for n in sibling.names if n.startswith(("keras.", "tensorflow."))}
            keyword = "units" if "dense" in lasts else "filters" if lasts & CONVOLUTION_LAYERS else None
            if keyword is not None:
                width = self._width(sibling, list(sibling.names), keyword, passed, None)
                if width is not None:
                    widths.append(width)
        return bool(widths) and max(widths) < NARROW_WIDTH["dense"]

    def _width(self, layer: CallSite, names: list[str], keyword: str, passed: _Passed | None,
               variable: tuple[ModuleInfo, FunctionInfo | None, cst.Call] | None) -> int | None:
        """The layer's width where the source says it (see :meth:`_narrow`)."""
        if any(name in WEIGHT_OPERANDS for name in names):
            return self._variable_width(variable, layer.function, passed) if variable is not None else None
        functional = any(n.startswith(TF1_FUNCTIONAL_LAYERS) for n in names)
        width = _width_argument(layer, names, keyword)
        if width is None and keyword == "units":  # slim's layers, TensorFlow 1.x's recurrent cells
            width = argument_value(layer.node, "num_outputs" if functional else "num_units")
        if width is None:
            width = self._layer_argument(layer, keyword)
        return self._integer(layer.module, width, passed, layer.function)

    def _layer_argument(self, site: CallSite, keyword: str, position: int | None = None) -> cst.BaseExpression | None:
        """What ``site`` passes for ``keyword``: by keyword, at ``position``, or in the ``**params`` dict it unpacks
        (``params = {"filters": n, "kernel_size": 1}``, then ``tf.layers.conv1d(**params)``)."""
        given = argument_value(site.node, keyword, position)
        return given if given is not None else next(
            (value for name, value in self._keyword_arguments(site) if name == keyword), None)

    def _keyword_arguments(self, site: CallSite) -> list[tuple[str | None, cst.BaseExpression]]:
        """Each argument of ``site`` with its keyword (None for a positional one, or an unpacking the source does
        not spell out), a ``**params`` unpacked where the value ``params`` holds there is a dict
        (:meth:`_value_reaching`: ``conv1_params = {"filters": 256, "kernel_size": 9}`` or ``dict(rotation_range=0,
        ...)``, then ``f(x, **params)``)."""
        found: list[tuple[str | None, cst.BaseExpression]] = []
        for arg in site.node.args:
            unpacked = self._value_reaching(site, arg.value) if arg.star == "**" and isinstance(arg.value, cst.Name) \
                else None
            if unpacked is not None and isinstance(unpacked[2], cst.Dict):
                found += [(key if isinstance(key := literal(e.key), str) else None, e.value)
                          for e in unpacked[2].elements if isinstance(e, cst.DictElement)]
            elif unpacked is not None and m.matches(unpacked[2], m.Call(func=m.Name("dict"))):
                found += [(a.keyword.value if a.keyword is not None else None, a.value) for a in unpacked[2].args]
            else:
                found.append((arg.keyword.value if arg.keyword is not None else None, arg.value))
        return found

    def _value_reaching(self, site: CallSite, name: cst.Name
                        ) -> tuple[ModuleInfo, FunctionInfo | None, cst.BaseExpression] | None:
        """The value ``name`` holds at ``site``: the one assigned to it (:meth:`assigned_value`), or, where its function
        assigns it several times in a row (``params = {...}``, a layer, ``params = {...}``, the next layer), the last
        assignment before ``site`` in no branch the call is not in too."""
        values = self.assigned_values(site.module, site.function, name)
        if len(values) <= 1:
            return self.assigned_value(site.module, site.function, name)
        module, line = site.module, site.module.location(site.node).line
        before = [value for value in values if value[1] is site.function and module.location(value[2]).line < line]
        if not before:
            return None
        scope = site.function.node if site.function is not None else None
        around_site = {id(branch) for branch, _ in _branches_around(module, site.node, scope)}
        return before[-1] if all(id(branch) in around_site
                                 for branch, _ in _branches_around(module, before[-1][2], scope)) else None

    def _arguments_given(self, site: CallSite, parameters: Sequence[str]) -> dict[str, cst.BaseExpression]:
        """What ``site`` passes for each of ``parameters``, a ``**params`` dict written once spelled out
        (``FISSA(**model_params)``, ``model_params = {"embed_dim": FLAGS.embed_dim, ...}``)."""
        given = _arguments_by_parameter(site.node, parameters)
        if any(arg.star == "**" for arg in site.node.args):
            for keyword, value in self._keyword_arguments(site):
                if keyword in parameters:
                    given.setdefault(keyword, value)
        return given

    def _weight_variable(self, layer: CallSite, names: list[str]) -> tuple[ModuleInfo, FunctionInfo | None,
                                                                             cst.Call] | None:
        """The variable a raw op takes as its weight (``tf.matmul(x, W)``, ``tf.nn.conv2d(x, kernel)``) where the
        source shows it made, with where: ``W = tf.get_variable("W", shape=[h, n])``, ``self.W =
        tf.Variable(tf.truncated_normal([h, n]))``, assigned once."""
        operand = next((WEIGHT_OPERANDS[name] for name in names if name in WEIGHT_OPERANDS), None)
        weight = argument_value(layer.node, *operand) if operand is not None else None
        item = None
        if m.matches(weight, m.Subscript(slice=[m.SubscriptElement(m.Index(m.Integer()))])):
            # `self.output_projection[0]`, where `self.output_projection = (w, b)`
            item, weight = int(weight.slice[0].slice.value.value), weight.value
        elif m.matches(weight, m.Subscript(value=m.Name())):
            # `W_Q[i]` of a list the code fills with one variable per head (`W_Q.append(tf.Variable(...))`)
            scope = layer.function.node if layer.function is not None else layer.module.tree
            weight = next((appended.args[0].value for appended in m.findall(scope, m.Call(func=m.Attribute(
                value=m.Name(weight.value.value), attr=m.Name("append")))) if appended.args), None)
            return (layer.module, layer.function, weight) if isinstance(weight, cst.Call) and \
                layer.module.qualified_names(weight.func) & (VARIABLE_FACTORIES | VARIABLES) else None
        bound = self.assigned_value(layer.module, layer.function, weight) if weight is not None else None
        if bound is not None and item is not None:
            elements = getattr(bound[2], "elements", ())
            bound = self.assigned_value(bound[0], bound[1], elements[item].value) if item < len(elements) else None
        if bound is None or not isinstance(bound[2], cst.Call) or not bound[0].qualified_names(bound[2].func) & (
                VARIABLE_FACTORIES | VARIABLES):
            return None
        return bound

    def _computed_operand(self, layer: CallSite, operand: tuple[str, int]) -> bool:
        """Whether a raw op's weight operand is computed by the code, not a variable: an op's result, written in
        place or bound to the name it is passed by (``values = tf.layers.dense(h, 64)``; by every binding of it,
        as GAT's ``seq_fts``, dropped out on some runs), seen through reshapes (``tf.transpose(keys)`` is computed,
        GPT-2's ``tf.reshape(w, [-1, nf])`` of a variable is a weight, and so is a pretrained array made a
        constant)."""
        return self._computed(layer.module, layer.function, argument_value(layer.node, *operand), WIDTH_DEPTH)

    def _computed(self, module: ModuleInfo, scope: FunctionInfo | None, value: cst.BaseExpression | None,
                  depth: int) -> bool:
        if depth == 0 or value is None:
            return False
        if isinstance(value, cst.Call) and module.qualified_names(value.func) & RESHAPING_OPS and value.args:
            return self._computed(module, scope, value.args[0].value, depth - 1)
        if isinstance(value, cst.Subscript):  # `x0_cols[i]` of `x0_cols = tf.split(x0, k, axis=-1)`
            return self._computed(module, scope, value.value, depth - 1)
        if isinstance(value, cst.Name):
            bound = [binding for binding in self.assigned_values(module, scope, value)
                     if not m.matches(binding[2], m.Name("None"))]
            return bool(bound) and all(self._computed(*binding, depth - 1) for binding in bound)
        names = module.qualified_names(value.func) if isinstance(value, cst.Call) else set()
        return any(n.startswith("tensorflow.") for n in names) and not names & (
            VARIABLE_FACTORIES | VARIABLES | CONSTANT_WEIGHTS)

    def _variable_width(self, variable: tuple[ModuleInfo, FunctionInfo | None, cst.Call], layer_scope:
                        FunctionInfo | None, passed: _Passed | None) -> int | None:
        """The last dimension of the weight ``variable``'s shape, where the source says."""
        module, scope, call = variable
        shape = _variable_shape(module, call)
        if shape is None:
            return None
        # The shape's names are the layer's function's parameters only where the variable is made there.
        return self._integer(module, shape.elements[-1].value, passed if scope is layer_scope else None, scope)

    def _integer(self, module: ModuleInfo, value: cst.BaseExpression | None, passed: _Passed | None,
                 scope: FunctionInfo | None = None, depth: int = WIDTH_DEPTH, element: object = None) -> int | None:
        """The largest integer ``value`` (an expression in ``scope``) may come to: a literal, a constant, what the
        caller passed for a parameter (``passed``, else the most any caller passes), a name or ``self.attribute``
        assigned once, a command-line flag's default, arithmetic on those (``2 * n_filters``), or an item of a list
        or tuple of those (``n_filters[2]``); None when the source does not say. With ``element``, ``value`` is
        that list, tuple or dict and the item is wanted: the one at that index or key (``config["filters"]``), or
        the largest (``_ANY_ITEM``, an index the source does not say: ``filters[i]`` in a loop)."""
        enclosing = _enclosing_passed(scope, value, passed)
        if enclosing is not None:
            return self._integer(module, value, enclosing, scope.outer, depth, element)
        if isinstance(value, cst.Name) and passed is not None and value.value in passed.arguments:
            caller = passed.site  # the caller's expression: its names are the caller's
            return self._integer(caller.module, passed.arguments[value.value], passed.outer, caller.function, depth,
                                 element)
        if isinstance(value, cst.Name) and passed is not None and passed.function is scope and scope is not None and \
                value.value in scope.params:  # a parameter the call leaves to its default
            default = _parameter_default(scope, value.value)
            return self._integer(module, default, None, scope, depth - 1, element) if default is not None else None
        if isinstance(value, (cst.List, cst.Tuple)) and element is not None:
            items = [self._integer(module, item.value, passed, scope, depth)
                     for item in value.elements if isinstance(item, cst.Element)]
            if len(items) < len(value.elements):
                return None  # a starred item
            if element is _ANY_ITEM:
                return max(items) if items and None not in items else None
            return items[element] if isinstance(element, int) and -len(items) <= element < len(items) else None
        if isinstance(value, cst.Dict) and isinstance(element, str):
            item = next((item.value for item in value.elements if isinstance(item, cst.DictElement) and
                         isinstance(item.key, cst.SimpleString) and item.key.evaluated_value == element), None)
            return self._integer(module, item, passed, scope, depth) if item is not None else None
        if element is not None and not isinstance(value, (cst.Name, cst.Attribute, cst.IfExp)):
            return None  # a sequence the source builds some other way
        if isinstance(value, cst.Subscript) and len(value.slice) == 1 and isinstance(value.slice[0].slice, cst.Index):
            index = value.slice[0].slice.value
            counter = isinstance(index, cst.Name) and module.range_stop(index) is not None  # any item up to the stop
            key = index.evaluated_value if isinstance(index, cst.SimpleString) else None if counter else self._integer(
                module, index, passed, scope, depth)
            return self._integer(module, value.value, passed, scope, depth, _ANY_ITEM if key is None else key)
        if isinstance(value, cst.BinaryOperation) and isinstance(value.operator, tuple(ARITHMETIC)):
            left, right = (self._integer(module, side, passed, scope, depth) for side in (value.left, value.right))
            return ARITHMETIC[type(value.operator)](left, right) if left is not None and right is not None else None
        if m.matches(value, m.Call(func=m.Name("int"), args=[m.Arg(keyword=None)])):
            # `int(32 * factor)`, with `factor = 1.0` set in the function: a width scaled by a number
            whole = self._integer(module, value.args[0].value, passed, scope, depth)
            if whole is None:
                scaled = self._value(module, value.args[0].value, depth)
                whole = int(scaled) if isinstance(scaled, (int, float)) and not isinstance(scaled, bool) else None
            return whole
        if m.matches(value, m.UnaryOperation(operator=m.Minus(), expression=m.Integer())) and element is None:
            return -value.expression.evaluated_value  # an index from the end: `n_heads[-1]`
        number = self.integer_literal(module, value) if element is None else None
        if number is not None or depth == 0 or value is None:
            return number.value if number is not None else None
        flag = self.flag_default(module, value)
        if flag is not None:
            return self._integer(*flag, None, None, depth - 1, element)
        if isinstance(value, cst.IfExp):
            return self._conditional_integer(module, value, passed, scope, depth, element)
        if scope is not None and isinstance(value, cst.Name) and value.value in scope.params and \
                not _assignments(scope.node.body, m.Name(value.value)):
            return self._largest_argument(scope, value.value, depth - 1, element)
        loop = module.binding_loop(value) if isinstance(value, cst.Name) else None
        stop = counted_stop(loop) if loop is not None else None
        if stop is not None:  # a loop's counter: below the loop's stop
            last = self._integer(module, stop, passed, scope, depth - 1)
            return last - 1 if last is not None else None
        looped = (self._items_looped(module, scope, loop, value.value, passed) or
                  self._values_looped(module, scope, loop, passed)) if loop is not None else None
        if isinstance(looped, list):  # a loop's element: the most of the values it runs over
            items = [self._integer(module, item, passed, scope, depth - 1) for item in looped]
            if None not in items:
                return max(items)
        bound = self.assigned_value(module, scope, value)
        if bound is None and scope is None and isinstance(value, cst.Name):
            bound = self._last_assigned_above(module, value)
        if bound is None and scope is not None and isinstance(value, cst.Name) and not _assignments(
                scope.node.body, m.Name(value.value)):
            # A global the function reads, assigned several times (a notebook's cells): the most it may hold.
            values = [self._integer(owner, assigned, None, None, depth - 1, element)
                      for owner, where, assigned in self.assigned_values(module, None, value) if where is None]
            return max(values) if values and None not in values else None
        if bound is None:
            return None
        # What the constructor was given still decides `self.filters = filters` read in the class's `build`.
        kept = passed if bound[1] is scope else None
        while passed is not None and kept is None and bound[1] is not None:
            kept, passed = (passed if passed.function is bound[1] else None), passed.outer
        start = self._integer(bound[0], bound[2], kept, bound[1], depth - 1, element)
        if start is None or element is not None or not isinstance(value, cst.Name) or bound[0] is not module:
            return start
        return self._grown(module, bound[1], value, start, kept, depth)

    def _grown(self, module: ModuleInfo, scope: FunctionInfo | None, reading: cst.Name, start: int,
               passed: _Passed | None, depth: int) -> int | None:
        """The most the name ``reading`` reads comes to, from ``start`` (its one plain assignment in ``scope``), after
        the augmented assignments there that grow it and may run before the read: a U-Net's ``n_filters *= 2`` at the
        end of each of its 3 levels makes the 32 filters of its first level 128 on its last and 256 below it. None
        where one grows it by an amount, or as often, as the source does not say (a ``while`` loop)."""
        block = scope.node.body if scope is not None else module.tree
        line = module.location(reading).line
        value = start
        for growth in m.findall(block, m.AugAssign(target=m.Name(reading.value), operator=_GROWING_ASSIGNMENT)):
            grown_at = module.location(growth).line
            loop = module.enclosing_loop(growth)
            if loop is None:
                times = 1 if grown_at < line else 0
            else:
                looped = self._values_looped(module, scope, loop, passed) if isinstance(loop, cst.For) else None
                if looped is None:
                    return None
                times = looped if isinstance(looped, int) else len(looped)
                span = module.location(loop)
                if line < span.line:
                    times = 0  # read before the loop
                elif line <= span.end_line and line < grown_at:
                    times -= 1  # read in the loop ahead of the growth: the last iteration's growth comes after
            by = self._integer(module, growth.value, passed, scope, depth - 1)
            times = max(times, 0)
            if by is None or by < 0:
                return None
            if isinstance(growth.operator, cst.AddAssign):
                value += by * times
            elif times > _MAX_DOUBLINGS or by > 1 and isinstance(growth.operator, cst.LeftShiftAssign) and \
                    by * times > _MAX_DOUBLINGS:
                return None  # grown in a long loop: past any width
            else:
                value = value * by ** times if isinstance(growth.operator, cst.MultiplyAssign) else value << by * times
        return value

    def _last_assigned_above(self, module: ModuleInfo, name: cst.Name
                             ) -> tuple[ModuleInfo, FunctionInfo | None, cst.BaseExpression] | None:
        """What a module-level ``name`` assigned several times holds where it is read: the last value assigned above
        it (a script, or a notebook's cells in order: `hidden_dim = 256` in one cell, `hidden_dim = 1024` later)."""
        line = module.location(name).line
        loop = module.enclosing_loop(name)
        rebound = m.Assign(targets=[m.ZeroOrMore(), m.AssignTarget(m.Name(name.value)), m.ZeroOrMore()]) | m.AugAssign(
            target=m.Name(name.value))
        if loop is not None and any(module.location(statement).line >= line
                                    for statement in m.findall(loop.body, rebound)):
            return None  # a later iteration reads what the loop assigns below
        above = [bound for bound in self.assigned_values(module, None, name)
                 if bound[0] is module and bound[1] is None and module.location(bound[2]).line < line]
        return above[-1] if above else None

    def _conditional_integer(self, module: ModuleInfo, value: cst.IfExp, passed: _Passed | None,
                             scope: FunctionInfo | None, depth: int, element: object = None) -> int | None:
        """The largest integer ``a if test else b`` may come to: the branch the test takes where the source decides
        it (``filters[i] if isinstance(filters, list) else filters``, ``filters`` a known number, takes the
        second), else the larger branch where both are known."""
        test = value.test
        if m.matches(test, m.Call(func=m.Name("isinstance"), args=[m.Arg(), m.Arg()])):
            checked = self._integer(module, test.args[0].value, passed, scope, depth)
            types = {e.value.value for e in getattr(test.args[1].value, "elements", ()) if isinstance(e.value, cst.Name)
                     } or ({test.args[1].value.value} if isinstance(test.args[1].value, cst.Name) else set())
            truth = None if checked is None or not types else "int" in types
        else:
            truth = self._truth(module, test)
        if truth is not None:
            return self._integer(module, value.body if truth else value.orelse, passed, scope, depth, element)
        both = [self._integer(module, branch, passed, scope, depth, element) for branch in (value.body, value.orelse)]
        return max(both) if None not in both else None

    def _largest_argument(self, function: FunctionInfo, parameter: str, depth: int, element: object = None
                          ) -> int | None:
        """The most any call of ``function`` passes for ``parameter`` (its default where a call passes none), of
        the calls a training run reaches where there are such (a repo's stale demo calls pass other things); None
        when one of them is not known. A function no code here calls (its script left out as a test, a method a
        framework runs) has its default: the value a call that says nothing else gets."""
        default = _parameter_default(function, parameter)
        callers = self.callers_of(function)
        if not callers and parameter == "params":
            # An Estimator calls its model function with the `params` it was made with.
            given = [(site, value) for site in self._estimators_running(function)
                     if (value := argument_value(site.node, "params")) is not None]
            values = [self._integer(site.module, value, None, site.function, depth, element) for site, value in given]
            return max(values) if values and None not in values else None
        if not callers:
            return self._integer(function.module, default, None, function.outer, depth, element) \
                if default is not None else None
        training = [c for c in callers if self.reach(c.module, c.node) is Reach.TRAINING]
        values = []
        for caller in training or callers:
            given = self._arguments_given(caller, _called_parameters(function)).get(parameter, default)
            values.append(self._integer(caller.module, given, None, caller.function, depth, element)
                          if given is not None else None)
        return max(values) if values and None not in values else None

    def _estimators_running(self, function: FunctionInfo) -> list[CallSite]:
        """The Estimators made with ``function`` as their model function (``tf.estimator.Estimator(model_fn=
        transformer_model_fn, params={...})``)."""
        found = []
        for site in self._estimators:
            model_fn = argument_value(site.node, "model_fn", 0)
            if model_fn is not None and any(f.node is function.node for f, _ in self.index.callees(
                    site.module.qualified_names(model_fn))):
                found.append(site)
        return found

    @cached_property
    def _estimators(self) -> list[CallSite]:
        return [site for site in self.index.calls if _makes_estimator(site.names)]

    # -- command-line flags ------------------------------------------------------------------------------------
    def flag_default(self, module: ModuleInfo, expression: cst.BaseExpression) -> tuple[ModuleInfo,
                                                                                          cst.BaseExpression] | None:
        """The default of the command-line flag ``expression`` reads, with the module defining it: ``FLAGS.embed_size``
        of TensorFlow 1.x's ``tf.app.flags`` or absl's ``flags``, or ``args.embed_size`` where ``args`` holds what
        argparse parsed. The definition in the module that reads it (a repo's scripts define the same flag with
        their own defaults), else in the modules it imports (``from config import *``, one subproject's ``args``
        beside others' of the same names), else the default every definition in the repo agrees on."""
        if not isinstance(expression, cst.Attribute):
            return None
        if m.matches(expression.value, m.Attribute(value=m.Name("self"), attr=m.Name())) and \
                expression.value.attr.value in self._attributes_assigned(module).get("self", ()):
            # `self.args.prop_a`, the namespace a class was given and keeps (`self.args = args`), read as `args`
            expression = expression.with_changes(value=expression.value.attr)
        if any(n.startswith(FLAG_MODULES) and n.split(".")[-2] == "FLAGS" for n in module.qualified_names(
                expression)) or module.qualified_names(expression.value) & self._flag_objects:
            definitions = self._flag_definitions.get(expression.attr.value, [])
        elif isinstance(expression.value, cst.Name) and expression.value.value in self._argument_namespaces and \
                not self._argument_written(module, expression):
            definitions = self._argument_definitions.get(expression.attr.value, [])
        elif (held := [self._namespace_holders[name] for name in module.qualified_names(expression.value)
                       if name in self._namespace_holders]) and not any(expression.attr.value in written
                                                                          for written in held):
            definitions = self._argument_definitions.get(expression.attr.value, [])
        else:
            return None
        imported = self._modules_imported_from(module) if definitions else set()
        chosen = [d for d in definitions if d[0] is module] or [d for d in definitions if id(d[0]) in imported] \
            or definitions
        if any(default is None for _, default in chosen):
            return None
        return chosen[0] if len({owner.node_code(default) for owner, default in chosen}) == 1 else None

    @cached_property
    def _flag_objects(self) -> frozenset[str]:
        """Module globals (by qualified name) bound to the flags object a repo function defines and returns:
        ``FLAGS = define_flags()``, where ``define_flags`` ends with ``return tf.app.flags.FLAGS``."""
        returning = [f for f in self.index.functions if "FLAGS" in f.module.code and _returns_flags(f)]
        names = {f.name for f in returning}
        held: set[str] = set()
        for site in self.index.calls if returning else ():
            if site.function is None and {n.rsplit(".", 1)[-1] for n in site.names} & names and any(
                    callee in returning for callee in self.callees_of(site)):
                binding = self.index.assignment_of(site.node)
                for target in binding.targets if binding is not None else ():
                    if isinstance(target.target, cst.Name):
                        held |= site.module.qualified_names(target.target)
        return frozenset(held)

    @cached_property
    def _flag_definitions(self) -> dict[str, list[tuple[ModuleInfo, cst.BaseExpression]]]:
        """Flag name -> where it is defined and its default (``flags.DEFINE_integer("batch_size", 32, ...)``)."""
        found: dict[str, list[tuple[ModuleInfo, cst.BaseExpression]]] = {}
        for site in self.index.calls:
            if any(n.startswith(FLAG_MODULES) and n.rsplit(".", 1)[-1] in FLAG_DEFINITIONS for n in site.names):
                name, default = argument_value(site.node, "name", 0), argument_value(site.node, "default", 1)
                if isinstance(name, cst.SimpleString) and default is not None:
                    found.setdefault(name.evaluated_value, []).append((site.module, default))
        return found

    @cached_property
    def _argument_definitions(self) -> dict[str, list[tuple[ModuleInfo, cst.BaseExpression | None]]]:
        """argparse destination -> where it is defined and its default: ``parser.add_argument("--batch-size",
        type=int, default=32)`` (``batch_size``); ``action="store_true"`` defaults to False, no default to None;
        ``parser.set_defaults(lr=0.1)`` defines one more. Positional and required arguments have no default (None
        here): the user gives them, so a destination one of them fills (``add_argument("mode", nargs="?")`` beside
        ``--mode``) has none a run reads."""
        found: dict[str, list[tuple[ModuleInfo, cst.BaseExpression | None]]] = {}
        for site in self.index.calls:
            method = method_name(site.node)
            if method == "set_defaults":
                for arg in site.node.args:
                    if arg.keyword is not None:
                        found.setdefault(arg.keyword.value, []).append((site.module, arg.value))
            if method != "add_argument":
                continue
            options = [a.value.evaluated_value for a in site.node.args if a.keyword is None and
                       isinstance(a.value, cst.SimpleString) and isinstance(a.value.evaluated_value, str)]
            if not options:
                continue
            dest = argument_value(site.node, "dest", None)
            if isinstance(dest, cst.SimpleString):
                name = dest.evaluated_value
            else:
                long = [o for o in options if o.startswith("--")]
                name = (long or options)[0].lstrip("-").replace("-", "_")
            required = argument_value(site.node, "required", None)
            if not all(option.startswith("-") for option in options) or (
                    required is not None and self._truth(site.module, required) is not False):
                found.setdefault(name, []).append((site.module, None))
                continue
            action = argument_value(site.node, "action", None)
            action = action.evaluated_value if isinstance(action, cst.SimpleString) else None
            default = argument_value(site.node, "default", None) or cst.Name(
                {"store_true": "False", "store_false": "True"}.get(action, "None"))
            conversion = argument_value(site.node, "type", None)
            if isinstance(default, cst.SimpleString) and conversion is not None:
                default = _converted_default(site.module, conversion, default)
            found.setdefault(name, []).append((site.module, default))
        return found

    @cached_property
    def _argument_parses(self) -> list[CallSite]:
        return [site for site in self.index.calls if method_name(site.node) in ARGUMENT_PARSERS]

    @cached_property
    def _argument_namespaces(self) -> frozenset[str]:
        """Names bound to what argparse parsed: ``args = parser.parse_args()``, or a repo function returning it
        (``args = get_args()``); not where the repo writes into it wholesale (``args.__dict__.update(config)``,
        ``setattr(args, key, value)``), which leaves no default the value."""
        if not self._argument_parses:
            return frozenset()
        returning = {site.function.name for site in self._argument_parses
                     if site.function is not None and _returns_parsed(site.function)}
        parsed = {name for (*_, name), sites in self._bindings.items() if any(
            method_name(site.node) in ARGUMENT_PARSERS or returning & {n.rsplit(".", 1)[-1] for n in site.names} and
            any(_returns_parsed(f) for f, _ in self.index.callees(site.names)) for site in sites)}
        return frozenset(parsed - {name for site in self.index.calls if (name := _namespace_overwritten(site.node))})

    @cached_property
    def _namespace_holders(self) -> dict[str, set[str]]:
        """Module globals a script stores what argparse parsed in, for the repo to read (``configs.config_values =
        args``, then ``configs.config_values.model`` anywhere), by qualified name, with the attributes the repo
        writes into them (``configs.config_values.num_L = 1``), whose defaults are not what a run reads."""
        holders: dict[str, set[str]] = {}
        namespaces = self._argument_namespaces
        # (the text first: a walk of every module's tree costs more than the rest of this query)
        stored = re.compile(r"^[ \t]*\w+\.\w+[ \t]*=[ \t]*(" + "|".join(map(re.escape, namespaces)) + r")[ \t]*$",
                            re.MULTILINE) if namespaces else None
        for module in self.index.modules if stored is not None else ():
            if not stored.search(module.code):
                continue
            for assign in m.findall(module.tree, m.Assign(targets=[m.AssignTarget(m.Attribute(value=m.Name()))],
                                                          value=m.Name())):
                if assign.value.value in namespaces:
                    for held in module.qualified_names(assign.targets[0].target):
                        holders.setdefault(held, set())
        words = {held.rpartition(".")[2] for held in holders}
        for module in self.index.modules if holders else ():
            if not any(f"{word}." in module.code for word in words):
                continue
            for target in m.findall(module.tree, m.AssignTarget(m.Attribute()) | m.AugAssign(m.Attribute())):
                for held in module.qualified_names(target.target.value) & holders.keys():
                    holders[held].add(target.target.attr.value)
        return holders

    def _argument_written(self, module: ModuleInfo, expression: cst.Attribute) -> bool:
        """Whether the repo assigns the attribute ``expression`` reads (``args.lr = 0.1``), in the module reading it
        or one parsing the arguments: then its default is not what a run reads."""
        modules = {id(module): module, **{id(site.module): site.module for site in self._argument_parses}}
        return any(expression.attr.value in self._attributes_assigned(owner).get(expression.value.value, ())
                   for owner in modules.values())

    def _attributes_assigned(self, module: ModuleInfo) -> dict[str, set[str]]:
        """``name -> attributes`` a module assigns as ``name.attribute = ...`` (or ``+=``)."""
        if id(module) not in self._assigned_attributes:
            assigned: dict[str, set[str]] = {}
            for target in m.findall(module.tree, m.AssignTarget(target=m.Attribute(value=m.Name(), attr=m.Name())) |
                                    m.AugAssign(target=m.Attribute(value=m.Name(), attr=m.Name()))):
                assigned.setdefault(target.target.value.value, set()).add(target.target.attr.value)
            self._assigned_attributes[id(module)] = assigned
        return self._assigned_attributes[id(module)]

    def _methods_run_by_framework(self, cls_info: ClassInfo) -> list[FunctionInfo]:
        """The methods of a repo layer or model class (and of its repo bases) that Keras runs itself (``__init__``,
        ``build``, ``call``): those no other of its methods calls. A helper method (``self._make_stage(64, 3)``)
        runs where it is called, with what it is given, and as often; a base's ``__init__`` runs where the
        subclass's calls ``super().__init__(**kwargs)``."""
        methods = self._methods_of_hierarchy(cls_info)
        bases = [*cls_info.bases, *self._inherited_bases(cls_info.bases)]
        if not any(base.startswith(FRAMEWORK_PREFIXES) for base in bases):
            # A plain class (`Graph(mode)`, whose `build()` the caller calls itself): constructing it runs its
            # constructor, and what that calls; calling the object (`self.G(x)`) runs its `__call__`.
            return [*[method for method in methods if method.name == "__init__"][:1],
                    *[method for method in methods if method.name == "__call__"][:1]]
        mine = {id(method.node) for method in methods}
        called = {id(f.node) for method in methods for site in self.calls_in(method)
                  for f in [f for f, _ in self.index.callees(site.names)] + self._base_methods(site)
                  + self._methods_called_by_name(site) if id(f.node) in mine and f is not method}
        return [method for method in methods if id(method.node) not in called] or methods

    def _methods_called_by_name(self, site: CallSite) -> list[FunctionInfo]:
        """The methods ``x.name(...)`` runs by that name, ``x`` of any type (``self.feed(x).conv(...)``); not what
        Keras runs for ``self(x)``."""
        func = site.node.func
        return [f for f in self.callees_of(site) if isinstance(func, cst.Attribute) and f.name == func.attr.value]

    def _methods_of_hierarchy(self, cls_info: ClassInfo, depth: int = CALL_DEPTH) -> list[FunctionInfo]:
        """The methods of a repo class and of its repo base classes."""
        own = self.index.methods_of(cls_info)
        if depth == 0:
            return own
        return own + [f for base in self._classes_named(cls_info.bases) for f in self._methods_of_hierarchy(base,
                                                                                                           depth - 1)]

    def _builds_model(self, site: CallSite) -> bool:
        """A Keras layer, input or model construction, a pretrained architecture from a library's factory or
        another whole network a library builds as a Keras model, or the instantiation of a repo ``keras.Model``
        subclass."""
        return bool(site.names & (KERAS_INPUT | SEQUENTIAL | KERAS_MODEL)) or self._library_network(site) or any(
            n.startswith(MODEL_BUILDING_PREFIXES) for n in site.names) or _pretrained(site.names) or any(
            c.key in self._keras_model_classes for c in self._classes_constructed(site))

    def _task_backbone(self, site: CallSite) -> CallSite | None:
        """The construction of the ``backbone=`` a KerasHub/KerasCV/KerasNLP task model is made with, written in
        the call or bound to the name it passes (``backbone = YOLOV8Backbone.from_preset("yolo_v8_xl_backbone_coco")``
        in the cell before): the task adds a head to that network."""
        if not any(name.startswith(KERAS_MODEL_LIBRARIES) for name in site.names):
            return None
        given = argument_value(site.node, "backbone")
        if isinstance(given, cst.Name):
            return self.bound_call(site.module, site.node, given.value)
        return self._call_at.get(id(given)) if isinstance(given, cst.Call) else None

    def _library_network(self, site: CallSite) -> bool:
        """A whole network a library outside the repo builds (:data:`LIBRARY_NETWORKS`): in the library's own repo,
        its builder is repo code, followed like any other."""
        return bool(site.names & LIBRARY_NETWORKS) and not self.callees_of(site)

    @cached_property
    def _keras_model_classes(self) -> set[str]:
        return {c.key for base in KERAS_MODEL for c in self.index.subclasses_of(base)}

    def _constructions_of_receiver(self, training: CallSite) -> list[CallSite]:
        """For ``model.fit(...)``: the model constructions that made ``model``, through the builder functions that
        return it (``model = build_model()``), or what the callers pass where ``model`` is a parameter of the
        function training it (``def train_model(model, epochs): model.fit(...)``)."""
        receiver = training.node.func.value if isinstance(training.node.func, cst.Attribute) else None
        if m.matches(receiver, m.Attribute(value=m.Name(), attr=m.Name())):  # `rm.model.fit(...)`
            return self._constructions_of_attribute(training, receiver)
        if not isinstance(receiver, cst.Name):
            return []
        bound = self.bound_call(training.module, training.node, receiver.value, by_default=True)
        function = training.function
        if bound is None and function is not None and receiver.value in function.params and not _assignments(
                function.node.body, m.Name(receiver.value)):
            return self._passed_constructions(function, receiver.value, CALL_DEPTH)
        if bound is None:
            return []
        if bound.names & MODEL_REPLICATORS:  # `parallel_model = multi_gpu_model(model, gpus=2)`: model's copies
            return self._argument_constructions(bound, argument_value(bound.node, "model", 0), CALL_DEPTH)
        return self._constructions_in_call(bound, CALL_DEPTH, _unpacked_position(
            self.index.assignment_of(bound.node), receiver.value))

    def _constructions_of_attribute(self, site: CallSite, receiver: cst.Attribute,
                                    depth: int = CALL_DEPTH) -> list[CallSite]:
        """For ``rm.model`` (in ``rm.model.fit(...)``, or handed to ``site``), ``rm`` an object of a repo class,
        or ``self.model`` in one of its methods: the model constructions behind what its methods assign to
        ``self.model`` (``self.model = self.lstm()``, or ``self.model = model`` of a model the method built), or
        what a property of that name returns (``return self._model``, built on first use), each a model a run may
        train."""
        if not isinstance(receiver.value, cst.Name):
            return []
        if receiver.value.value == "self" and site.function is not None and site.function.class_key:
            classes = [self.index.class_of(site.function)]
        else:
            holder = self.bound_call(site.module, site.node, receiver.value.value)
            classes = self._classes_constructed(holder) if holder is not None else []
        found = [construction for cls_info in classes
                 for assigned in self._bindings.get(("attr", cls_info.key, receiver.attr.value), [])
                 for construction in self._constructions_in_call(assigned, CALL_DEPTH)]
        attribute = cst.Attribute(value=cst.Name("self"), attr=cst.Name(receiver.attr.value))
        for method in [next(iter(self.index.methods_of(cls_info)), None) for cls_info in classes]:
            for _, owner, value in self.assigned_values(method.module, method, attribute) if method else ():
                if isinstance(value, cst.Name) and value.value in owner.params:
                    found += self._passed_constructions(owner, value.value, CALL_DEPTH)
                elif isinstance(value, cst.Name):
                    bound = self.bound_call(owner.module, value, value.value)
                    found += self._constructions_in_call(bound, CALL_DEPTH) if bound is not None else []
        getters = [f for cls_info in classes for f in self.index.methods_of(cls_info)
                   if f.name == receiver.attr.value and f.decorators & PROPERTY_DECORATORS] if depth else []
        for getter in getters:
            for returned in m.findall(getter.node.body, m.Return(value=m.Attribute(value=m.Name("self")))):
                found += self._constructions_of_attribute(site, returned.value, depth - 1)
        return list({id(c.node): c for c in found}.values())

    def _constructions_in_call(self, site: CallSite, depth: int, position: int | None = None) -> list[CallSite]:
        """The model constructions behind what ``site`` returns (its element ``position`` when the caller unpacks
        a tuple), followed into the builders it calls; for a task model a library assembles around a backbone
        (``keras_cv.models.YOLOV8Detector(backbone=backbone, ...)``), the backbone's."""
        if self._builds_model(site):
            return [site]
        backbone = self._task_backbone(site)
        if backbone is not None:
            return self._constructions_in_call(backbone, depth)
        if depth == 0:
            return []
        found = []
        for builder in self.callees_of(site):
            calls = sorted(self.calls_in(builder), key=self._source_order)
            layers = [c for c in calls if self._builds_model(c)]
            # A builder returns the last model it constructs (sub-models and backbones come first); one that only
            # makes layers (a model is built from them elsewhere) is known by its first.
            models = [c for c in layers if self._constructs_model(c)]
            if position is not None:  # the caller unpacks one part: the others' models are not it
                others = _returned_names(builder.node.body)
                calls = [c for c in calls if not any(others.get(name) not in (None, position)
                                                     for name in _assigned_names(self.index.assignment_of(c.node)))]
                kept = {id(c.node) for c in calls}
                models = [c for c in models if id(c.node) in kept]
                layers = [c for c in layers if id(c.node) in kept]
            if not layers and position is None:  # `def freeze(model): ...; return model`: the model it was given
                passed = [name for name, place in _returned_names(builder.node.body).items()
                          if place is None and name in builder.params and not _assignments(builder.node.body,
                                                                                            m.Name(name))]
                if passed:
                    found += self._given_constructions(site, _arguments_by_parameter(
                        site.node, _called_parameters(builder)).get(passed[0]), depth - 1)
                    continue
            found += self._constructions_returned(builder, depth - 1, position, site) or models[-1:] or \
                layers[:1] or [c for call in calls for c in self._constructions_in_call(call, depth - 1)][:1]
        return found

    def _given_constructions(self, site: CallSite, argument: cst.BaseExpression | None,
                             depth: int) -> list[CallSite]:
        """The model constructions behind ``argument`` of ``site``, given to a function that returns it: a builder
        called in place, or a name bound before ``site`` (``model = freeze(model)`` reads the earlier ``model``)."""
        if isinstance(argument, cst.Call) and id(argument) in self._call_at:
            return self._constructions_in_call(self._call_at[id(argument)], depth)
        if not isinstance(argument, cst.Name) or depth == 0:
            return []
        bound = self.bound_call(site.module, site.node, argument.value)
        return [] if bound is None else self._constructions_in_call(bound, depth)

    def _constructions_returned(self, builder: FunctionInfo, depth: int, position: int | None,
                                site: CallSite | None = None) -> list[CallSite]:
        """The model constructions behind the name a builder returns (``return model, optimizer``: the element at
        ``position``; not the other models it builds). Of the calls it binds that name to, the one the run makes:
        by the branches the arguments ``site`` passes and the flags' defaults take (``if FLAGS.tiny:`` with
        ``tiny`` defaulting to False builds the ``else`` model; ``if training: return Model(...)`` the first
        when ``training=True``), else the one it always makes (``model = resnet50()`` before ``if small: model =
        resnet18()``), else the first: a run trains one."""
        skipped, conditional = self._branches_skipped(builder, site)
        candidates: list[tuple[CallSite, int | None]] = []  # calls whose result is returned, with the part of it
        for returned in m.findall(builder.node.body, m.Return(value=m.Name() | m.Tuple() | m.Call())):
            value = returned.value
            if isinstance(value, cst.Tuple):
                elements = value.elements
                value = elements[position].value if position is not None and position < len(elements) else None
            if isinstance(value, cst.Call) and id(value) in self._call_at:
                candidates.append((self._call_at[id(value)], None))
            elif isinstance(value, cst.Name):
                candidates += [(bound, _unpacked_position(self.index.assignment_of(bound.node), value.value))
                               for bound in self._bindings.get((id(builder.module), id(builder.node), value.value), ())]
        candidates.sort(key=lambda item: (id(item[0].node) in skipped, id(item[0].node) in conditional,
                                          self._call_order[id(item[0].node)]))
        for bound, part in candidates:
            found = self._constructions_in_call(bound, depth, part)
            if found:
                return found
        return []

    def _branches_skipped(self, function: FunctionInfo, site: CallSite | None, passed: _Passed | None = None
                          ) -> tuple[set[int], set[int]]:
        """The calls (by node) in ``function``'s branches that a run skips, where the source decides the test (a
        flag's default, a literal, what ``site`` passes for a parameter or its default), and those in the branches
        it does not decide. ``passed``: what ``site`` passes, followed through the callers that gave it (GAT's
        `attn_head(..., residual=residual)`, with `residual=False` given to the model's builder), for a test of any
        form (:meth:`_value`)."""
        arguments = _arguments_by_parameter(site.node, _called_parameters(function)) if site is not None else {}
        skipped: set[int] = set()
        undecided: set[int] = set()
        for branch in m.findall(function.node.body, m.If()):
            negated = isinstance(branch.test, cst.UnaryOperation) and isinstance(branch.test.operator, cst.Not)
            tested = branch.test.expression if negated else branch.test
            if passed is not None:
                truth = self._truth(function.module, branch.test, passed=passed)
            elif isinstance(tested, cst.Name) and tested.value in function.params:  # `if training:`, `if not tiny:`
                given = arguments.get(tested.value)
                truth = self._truth(site.module, given) if given is not None else self._truth(
                    function.module, _parameter_default(function, tested.value) or tested)
                truth = None if truth is None else truth != negated
            elif (compared := _parameter_compared(tested, function.params)) is not None:  # `if mode == "train":`
                parameter, equal, value = compared
                given = literal(arguments.get(parameter, _parameter_default(function, parameter)))
                truth = None if given is None or value is None else ((given == value) == equal) != negated
            else:
                truth = self._truth(function.module, branch.test, passed=passed)
            body = {id(c) for c in m.findall(branch.body, m.Call())}
            rest = {id(c) for c in m.findall(branch.orelse, m.Call())} if branch.orelse is not None else set()
            if truth is None:
                undecided |= body | rest
            else:
                skipped |= rest if truth else body
        return skipped, undecided - skipped

    def bound_call(self, module: ModuleInfo, near: cst.CSTNode, name: str, by_default: bool = False
                   ) -> CallSite | None:
        """The call whose result ``name`` holds where ``near`` is: the last ``name = call(...)`` before it in the
        same function (or module level), else a module-level ``name = call(...)`` (a global the function reads).
        For a call ``near`` binding ``name`` itself (``model = freeze(model)``), the binding its arguments read.
        ``by_default``: of several bindings before it, the last one a run with the defaults the source sets makes
        (``model = densenet(...)`` in the ``else`` of ``if model_type == "wrn":``, with ``"wrn"`` the default, is
        not); branches are read with the call graph, so not while it is built."""
        scope = self.enclosing_function(module, near)
        candidates = self._bindings.get((id(module), id(scope.node) if scope else None, name), ())
        local = [site for site in candidates if self._not_below(module, site.node, near) and site.node is not near]
        if by_default and len(local) > 1:
            local = [site for site in local if self.skipped_by_default(
                module, module.location(site.node).line, depth=0) is None] or local
        if local:
            return self._last(local)
        outer = scope.outer if scope is not None else None
        while outer is not None:  # a closure reads its enclosing functions' names
            enclosing = self._bindings.get((id(module), id(outer.node), name), [])
            if enclosing:
                # as bound when the closure runs: a rebinding written below it (an evaluation model made after
                # training) has not happened yet
                return self._last([site for site in enclosing if self._not_below(module, site.node, near)]
                                  or enclosing)
            outer = outer.outer
        module_level = self._bindings.get((id(module), None, name), []) if scope is not None else []
        if not module_level:
            return None
        # As bound when the module first calls the function (a notebook's training cell), not by a rebinding below
        # (the same name rebuilt to load the weights and generate).
        first = next((site for site in self._module_level_calls.get(id(module), ())
                      if any(f is scope for f in self.index.functions_named(*site.names))), None)
        before = [site for site in module_level if first is not None and self._not_below(module, site.node,
                                                                                           first.node)]
        return self._last(before or module_level)

    def _not_below(self, module: ModuleInfo, call: cst.Call, near: cst.CSTNode) -> bool:
        """Whether ``call`` starts no later than ``near``: for a call ``near``, the index's visit order tells (a call
        met earlier starts no later); for another node, whether ``call`` starts on its line or above. Positions cost
        a code generation of the whole module, which most modules never need."""
        order = self._call_order
        if id(near) in order:
            return order[id(call)] <= order[id(near)]
        return module.location(call).line <= module.location(near).line

    def _last(self, sites: list[CallSite]) -> CallSite:
        """The last of ``sites``, calls of one module bound to names (none holds another), in source order."""
        order = self._call_order
        return max(sites, key=lambda site: order[id(site.node)])

    @cached_property
    def _call_order(self) -> dict[int, int]:
        """Each call's place in the index: a module's calls in the order the visit met them (a call before the
        calls in it, then the code after it), so within a module, a call met earlier starts no later."""
        return {id(site.node): place for place, site in enumerate(self.index.calls)}

    @cached_property
    def _bindings(self) -> dict[tuple, list[CallSite]]:
        """Calls whose result is bound to a name, by (module, function or None, name), and to an attribute of a
        class's instances, by ("attr", class key, name)."""
        found: dict[tuple, list[CallSite]] = {}
        for site in self.index.calls:
            binding = self.index.assignment_of(site.node)
            if binding is None:
                name = _parallel_target(site.module, site.node)
                if name is not None:  # `g_opt, d_opt = optimizer(g_lr), optimizer(d_lr)`: each its own call's
                    scope = id(site.function.node) if site.function is not None else None
                    found.setdefault((id(site.module), scope, name), []).append(site)
                continue
            for target in binding.targets:
                if m.matches(target.target, m.Attribute(value=m.Name("self"), attr=m.Name())):
                    if site.function is not None and site.function.class_key is not None:
                        found.setdefault(("attr", site.function.class_key, target.target.attr.value), []).append(site)
                    continue
                # `model, optimizer = setup()`: each name holds part of what the call made
                names = [target.target] if isinstance(target.target, cst.Name) else [
                    e.value for e in getattr(target.target, "elements", ()) if isinstance(e.value, cst.Name)]
                scope = id(site.function.node) if site.function is not None else None
                for name in names:
                    found.setdefault((id(site.module), scope, name.value), []).append(site)
        return found

    def is_output_layer(self, module: ModuleInfo, layer: cst.Call) -> bool:
        """The last layer of a ``Sequential([...])`` literal, the layer whose output is a ``Model``'s outputs, or
        the layer a subclassed model's ``call`` returns the output of (``self.head = Dense(10)`` ... ``return
        self.head(x)``)."""
        parent = module.parent(layer)
        attribute = self._assigned_self_attribute(module, parent)
        if attribute is not None:
            return attribute in self._returned_layer_attributes(module, layer)
        if isinstance(parent, cst.Element):
            container = module.parent(parent)
            constructor = module.parent(module.parent(container)) if container is not None else None
            return isinstance(container, cst.List) and container.elements[-1] is parent \
                and isinstance(constructor, cst.Call) and bool(module.qualified_names(constructor.func) & SEQUENTIAL)
        # Functional API: `outputs = Dense(n)(x)` and `Model(inputs, outputs)` (or the applied layer passed directly).
        applied = parent if isinstance(parent, cst.Call) and parent.func is layer else None
        if applied is None:
            return False
        assignment = module.parent(applied)
        names = {t.target.value for t in assignment.targets if isinstance(t.target, cst.Name)} \
            if isinstance(assignment, cst.Assign) else set()
        return any(o is applied or (isinstance(o, cst.Name) and o.value in names)
                   for o in self._model_outputs(module))

    @staticmethod
    def _assigned_self_attribute(module: ModuleInfo, node: cst.CSTNode | None) -> str | None:
        """``head`` when ``node`` is the statement ``self.head = ...``."""
        if not isinstance(node, cst.Assign):
            return None
        targets = [t.target for t in node.targets]
        if len(targets) == 1 and m.matches(targets[0], m.Attribute(value=m.Name("self"), attr=m.Name())):
            return targets[0].attr.value
        return None

    def _returned_layer_attributes(self, module: ModuleInfo, near: cst.CSTNode) -> set[str]:
        """The ``self.X`` layers whose outputs the ``call`` method of the class holding ``near`` returns, directly
        (``return self.X(h)``) or through a name (``out = self.X(h)`` ... ``return out``)."""
        function = self.enclosing_function(module, near)
        methods = [f for f in self.index.functions if function is not None and f.class_key == function.class_key
                   and f.name == "call"]
        found: set[str] = set()
        applied_self = m.Call(func=m.Attribute(value=m.Name("self"), attr=m.Name()))
        for method in methods:
            outputs = {}
            for statement in m.findall(method.node.body, m.Assign(value=applied_self)):
                for target in statement.targets:
                    if isinstance(target.target, cst.Name):
                        outputs[target.target.value] = statement.value.func.attr.value
            for returned in m.findall(method.node.body, m.Return(value=m.DoNotCare())):
                value = returned.value
                if m.matches(value, applied_self):
                    found.add(value.func.attr.value)
                elif isinstance(value, cst.Name) and value.value in outputs:
                    found.add(outputs[value.value])
        return found

    def is_data_sized(self, module: ModuleInfo, layer: cst.Call, constant: str | None) -> bool:
        """Whether a layer's size is set by the data rather than chosen: an output layer's (the class count), a
        softmax/sigmoid head's, or one written through a class-count constant (``NUM_CLASSES``)."""
        if constant is not None and DATA_SIZE_NAME.search(constant):
            return True
        activation = argument_value(layer, "activation")
        if isinstance(activation, cst.SimpleString) and activation.evaluated_value in OUTPUT_ACTIVATIONS:
            return True
        return self.is_output_layer(module, layer)

    def _model_outputs(self, module: ModuleInfo) -> list[cst.BaseExpression]:
        """The ``outputs`` expressions (or their elements) of the module's ``keras.Model(inputs, outputs)`` calls."""
        found: list[cst.BaseExpression] = []
        for site in self.index.calls_to(*KERAS_MODEL):
            if site.module is not module:
                continue
            value = argument_value(site.node, "outputs", 1)
            if isinstance(value, (cst.List, cst.Tuple)):
                found.extend(e.value for e in value.elements)
            elif value is not None:
                found.append(value)
        return found

    # -- the trained model and mixed precision --------------------------------------------------------------------
    def mixed_precision_plans(self, scale_losses: bool) -> list[MixedPrecisionPlan]:
        """For each module that trains Keras models (``fit``, ``compile``, a GradientTape step): where a
        mixed-precision policy must go for the models it trains, the float32 output each needs, and
        (``scale_losses``, for float16) the loss scaling of its GradientTape steps. Computed once per kind: the
        rule asks for each model construction."""
        if scale_losses not in self._mixed_precision_plans:
            self._mixed_precision_plans[scale_losses] = self._new_mixed_precision_plans(scale_losses)
        return self._mixed_precision_plans[scale_losses]

    def _new_mixed_precision_plans(self, scale_losses: bool) -> list[MixedPrecisionPlan]:
        resolver = _ModelResolver(self)
        by_module: dict[int, tuple[ModuleInfo, list[ModelConstruction | str]]] = {}
        for module, scope, expression in self._trained_receivers():
            result = resolver.receiver(module, scope, expression)
            if result is not None:
                by_module.setdefault(id(module), (module, []))[1].append(result)
        return [self._plan(resolver, module, results, scale_losses) for module, results in by_module.values()]

    def _plan(self, resolver: _ModelResolver, training: ModuleInfo, results: list[ModelConstruction | str],
              scale_losses: bool) -> MixedPrecisionPlan:
        models = list({id(r.call): r for r in results if isinstance(r, ModelConstruction)}.values())
        plan = MixedPrecisionPlan(training, models)
        problems = [r for r in results if isinstance(r, str)]
        if problems:
            plan.problem = problems[0]
            return plan
        for model in models:
            plan.policy_before.append(self._policy_statement(resolver, model))
            edit = self._output_edit(resolver, model)
            if isinstance(edit, str):
                plan.problem = edit
                return plan
            if edit is not None:
                plan.outputs.append(edit)
        plan.policy_before = list({id(s): (module, s) for module, s in plan.policy_before}.values())
        if scale_losses:
            scaling = self._loss_scaling(resolver, [s for s in self.training_steps if s.module is training])
            if isinstance(scaling, str):
                plan.problem = scaling
                return plan
            inline = [loop for loop in self.training_loops if loop.inline_step and loop.module is training]
            if inline:
                plan.problem = (f"the GradientTape loop at {training.location(inline[0].node).display} needs loss "
                                "scaling, which advisor writes only into a training step function")
                return plan
            plan.loss_scaling = scaling
        if len(plan.modules) > 1:
            plan.problem = (f"the model is built and trained across {len(plan.modules)} files "
                            f"({', '.join(m.path.as_posix() for m in plan.modules)}), and a patch changes one file")
        return plan

    def _trained_receivers(self) -> list[tuple[ModuleInfo, FunctionInfo | None, cst.BaseExpression]]:
        """The model expressions training uses: ``X`` of ``X.fit(...)``/``X.compile(...)``, and of
        ``tape.gradient(loss, X.trainable_variables)`` in a training step or a loop that trains inline."""
        found: dict[tuple[int, str], tuple[ModuleInfo, FunctionInfo | None, cst.BaseExpression]] = {}

        def add(site: CallSite, expression: cst.BaseExpression) -> None:
            key = (id(site.function.node) if site.function else id(site.module), site.module.node_code(expression))
            found.setdefault(key, (site.module, site.function, expression))

        fits = m.Attribute(attr=m.Name(value=m.MatchIfTrue(TRAINING_METHODS.__contains__)))
        compiles = {id(site) for site in self.keras_compiles}
        for site in self.index.calls:  # (not one a run stops before: that model trains in no run)
            if (m.matches(site.node.func, fits) or id(site) in compiles) and \
                    self.stops_before(site.module, site.module.location(site.node).line) is None:
                add(site, site.node.func.value)
        step_calls = [site for step in self.training_steps for site in self.calls_in(step)] + self._inline_gradients
        for site in step_calls:
            for model in _models_differentiated_by(site):
                add(site, model)
        return list(found.values())

    @cached_property
    def _inline_gradients(self) -> list[CallSite]:
        """The ``tape.gradient(...)`` calls of the loops that write their training step inline."""
        inline_steps = {id(loop.node) for loop in self.training_loops if loop.inline_step}
        # and those of the functions such a loop hands its tape to (`optimize(tape, generator, loss_g)`)
        takers = {id(function.node) for loop in self.training_loops if loop.inline_step
                  for function in self._tape_takers(loop.node.body)}
        return [site for site in self.index.calls if m.matches(site.node.func, _GRADIENT) and (
            (loop := site.module.enclosing_loop(site.node)) is not None and id(loop) in inline_steps
            or site.function is not None and id(site.function.node) in takers)]

    @staticmethod
    def _policy_statement(resolver: _ModelResolver, model: ModelConstruction) -> tuple[ModuleInfo, cst.BaseStatement]:
        """The statement a global policy goes before: the top of the builder the training calls, else the first
        statement of the function (or module) that builds the model which constructs a Keras layer or model. Always
        a statement of a function's or the module's own body: never inside one of its branches."""
        if model.builder is not None:
            body = list(model.builder.node.body.body)
            docstring = 1 if len(body) > 1 and m.matches(body[0], DOCSTRING) else 0
            return model.builder.module, body[docstring]
        module = model.module
        body = list(model.scope.node.body.body) if model.scope is not None else list(module.tree.body)
        anchor = _statement_in(body, module, model.call)
        for statement in body[:body.index(anchor)]:
            if not isinstance(statement, (cst.FunctionDef, cst.ClassDef)) and any(
                    resolver.constructs_keras(module, call) for call in m.findall(statement, m.Call())):
                return module, statement
        return module, anchor

    def _output_edit(self, resolver: _ModelResolver, model: ModelConstruction) -> OutputEdit | str | None:
        """How the model's output stays float32 (None: it already does), or why advisor cannot say."""
        module = model.module
        if model.kind == "sequential":
            layers = argument_value(model.call, "layers", 0)
            if layers is None:
                last = self._added_layers(module, model)
            else:
                last = layers.elements[-1].value if isinstance(layers, cst.List) and layers.elements else None
            if not _is_layer_constructor(module, last):
                return "advisor cannot find a Keras layer at the end of the `Sequential` model to keep in float32"
            return None if argument(last, "dtype") is not None else OutputEdit("dtype", last, module)
        if model.kind == "functional":
            outputs = argument_value(model.call, "outputs", 1)
            value = self.assigned_value(module, model.scope, outputs, last=True) if isinstance(outputs, cst.Name) \
                else (module, model.scope, outputs)
            applied = value[2] if value is not None else None
            if isinstance(applied, cst.Call) and _is_layer_constructor(module, applied.func):
                layer = applied.func
                return None if argument(layer, "dtype") is not None else OutputEdit("dtype", layer, module)
            if isinstance(applied, cst.Call) and (isinstance(applied.func, cst.Call) or any(
                    n in SINGLE_TENSOR_OPS for n in module.qualified_names(applied.func))):
                return OutputEdit("wrap", outputs, module)
            return "advisor cannot tell that the model has a single output tensor to keep in float32"
        return self._subclassed_output(resolver, model)

    def _added_layers(self, module: ModuleInfo, model: ModelConstruction) -> cst.BaseExpression | None:
        """The layer of the last ``model.add(layer)`` after ``model = Sequential()``."""
        assignment = module.parent(model.call)
        if not (isinstance(assignment, cst.Assign) and isinstance(assignment.targets[0].target, cst.Name)):
            return None
        name = assignment.targets[0].target.value
        block = model.scope.node.body if model.scope is not None else module.tree
        adds = m.findall(block, m.Call(func=m.Attribute(value=m.Name(name), attr=m.Name("add")), args=[m.Arg()]))
        return adds[-1].args[0].value if adds else None

    def _subclassed_output(self, resolver: _ModelResolver, model: ModelConstruction) -> OutputEdit | str | None:
        """The layer a subclassed model's ``call`` applies last, built as ``self.x = keras.layers.X(...)``."""
        cls_info = model.model_class
        call_method = next((f for f in self.index.methods_of(cls_info) if f.name == "call"), None)
        problem = f"advisor cannot find the layer `{cls_info.name}.call` applies last, to keep it in float32"
        if call_method is None:
            return problem
        returns = [r for r in m.findall(call_method.node.body, m.Return())
                   if self.enclosing_function(cls_info.module, r) is call_method]
        returned = returns[-1].value if len(returns) == 1 else None
        if isinstance(returned, cst.Name):
            value = self.assigned_value(cls_info.module, call_method, returned, last=True)
            returned = value[2] if value is not None else None
        self_layer = m.Call(func=m.Attribute(value=m.Name("self"), attr=m.Name()))
        if not m.matches(returned, self_layer):
            return problem
        value = self.assigned_value(cls_info.module, call_method, returned.func)
        layer = value[2] if value is not None else None
        if not _is_layer_constructor(cls_info.module, layer):
            return problem
        return None if argument(layer, "dtype") is not None else OutputEdit("dtype", layer, cls_info.module)

    def _loss_scaling(self, resolver: _ModelResolver, steps: list[FunctionInfo]) -> list[LossScaling] | str:
        """What the gradients of these steps need under float16: the loss scaled inside its tape by the optimizer
        that applies them, that optimizer built as a ``LossScaleOptimizer``; or why advisor cannot write it."""
        found: dict[tuple, LossScaling] = {}
        for step in steps:
            module = step.module
            for site in self.calls_in(step):
                call = site.node
                if not m.matches(call.func, m.Attribute(value=m.Name(), attr=m.Name("gradient"))):
                    continue
                where = module.location(call).display
                tape = self._tape_block(step, call.func.value.value)
                loss = argument_value(call, "target", 0)
                if tape is None or not isinstance(loss, cst.Name) or not m.findall(
                        tape.body, m.Assign(targets=[m.AssignTarget(target=m.Name(loss.value))])):
                    return (f"the gradient at {where} is not of a loss computed inside its `with GradientTape()` "
                            f"block, where loss scaling must happen")
                optimizer = self._applying_optimizer(step, call)
                if optimizer is None:
                    return f"advisor cannot find the optimizer `apply_gradients` call that uses the gradient at {where}"
                construction = self._optimizer_construction(resolver, step, optimizer)
                if isinstance(construction, str):
                    return construction
                key = (id(tape), loss.value, module.node_code(optimizer))
                found.setdefault(key, LossScaling(module, tape, loss.value, call, optimizer, construction))
        return list(found.values())

    @staticmethod
    def gradient_tapes(module: ModuleInfo, scope: cst.CSTNode) -> list[tuple[cst.With, cst.WithItem]]:
        """The ``with tf.GradientTape() as tape:`` blocks inside ``scope``, with their tape's item, in source
        order."""
        return [(block, item) for block in m.findall(scope, m.With()) for item in block.items
                if GRADIENT_TAPE in module.qualified_names(getattr(item.item, "func", item.item))]

    def _tape_block(self, step: FunctionInfo, tape_name: str) -> cst.With | None:
        return next((block for block, item in self.gradient_tapes(step.module, step.node.body)
                     if m.matches(item.asname, m.AsName(name=m.Name(tape_name)))), None)

    def _applying_optimizer(self, step: FunctionInfo, gradient: cst.Call) -> cst.BaseExpression | None:
        """The receiver of the ``apply_gradients`` call that uses the gradients ``gradient`` returned."""
        assignment = step.module.parent(gradient)
        if not (isinstance(assignment, cst.Assign) and isinstance(assignment.targets[0].target, cst.Name)):
            return None
        grads = assignment.targets[0].target.value
        for site in self.calls_in(step):
            func = site.node.func
            if m.matches(func, m.Attribute(attr=m.Name("apply_gradients"))) and \
                    m.findall(site.node, m.Name(grads)):
                return func.value
        return None

    @staticmethod
    def _optimizer_construction(resolver: _ModelResolver, step: FunctionInfo,
                                optimizer: cst.BaseExpression) -> cst.Call | None | str:
        """The Keras optimizer construction to wrap; None when Keras' compile builds it (``self.optimizer`` of a
        model's own ``train_step``, which compile wraps under a float16 policy)."""
        value = resolver.queries.assigned_value(step.module, step, optimizer)
        call = value[2] if value is not None else None
        if isinstance(call, cst.Call) and any(n.startswith(KERAS_OPTIMIZER_PREFIX) and n.rsplit(".", 1)[-1][:1].isupper()
                                              for n in step.module.qualified_names(call.func)):
            return call
        if value is None and m.matches(optimizer, m.Attribute(value=m.Name("self"), attr=m.Name("optimizer"))) and \
                step.class_key in {c.key for c in resolver.index.subclasses_of(*KERAS_MODEL)}:
            return None
        return f"advisor cannot tell where the optimizer `{step.module.node_code(optimizer)}` is built, to wrap it " \
               f"in a LossScaleOptimizer"

    # -- values ---------------------------------------------------------------------------------------------------
    def assigned_value(self, module: ModuleInfo, scope: FunctionInfo | None, expression: cst.BaseExpression,
                       last: bool = False) -> tuple[ModuleInfo, FunctionInfo | None, cst.BaseExpression] | None:
        """The expression assigned to a name (or ``self.attribute``), with where it was assigned: in the function,
        the functions around it, or the module (``self.x``: in the class's methods). None when it is not assigned,
        or assigned more than once there (which value is used is not known) unless ``last`` asks for the last
        assignment (``x = layer(x)`` chains of a model's forward pass). A ``None`` set before the value is made
        (``self._model = None`` in ``__init__``, the model built on first use) holds nothing to follow."""
        values = self.assigned_values(module, scope, expression)
        made = [value for value in values if not m.matches(value[2], m.Name("None"))]
        if len(made) == 1:
            values = made
        return values[-1] if len(values) == 1 or last and values else None

    def assigned_values(self, module: ModuleInfo, scope: FunctionInfo | None, expression: cst.BaseExpression
                        ) -> list[tuple[ModuleInfo, FunctionInfo | None, cst.BaseExpression]]:
        """Every expression assigned to a name (or ``self.attribute``) where it is assigned (see
        :meth:`assigned_value`), in source order: ``if deep: net = resnet_101`` ``else: net = resnet_50``."""
        if m.matches(expression, m.Attribute(value=m.Name("self"), attr=m.Name())) and scope is not None \
                and scope.class_key is not None:
            target = m.Attribute(value=m.Name("self"), attr=m.Name(expression.attr.value))
            return [(module, method, value) for method in self.index.methods_of(self.index.class_of(scope))
                    for value in _assignments(method.node.body, target)]
        if not isinstance(expression, cst.Name):
            return []
        target = m.Name(expression.value)
        function = scope
        while function is not None:
            values = _assignments(function.node.body, target)
            if values:
                return [(module, function, value) for value in values]
            function = function.outer
        return [(module, None, value) for value in _assignments(module.tree, target)]

    def integer_value(self, module: ModuleInfo, value: cst.BaseExpression, scope: FunctionInfo | None) -> int | None:
        """The largest integer ``value`` (in ``scope``) may come to, where the source says: a literal, a constant, a
        command-line flag's default, a name assigned once, what callers pass (``workers=num_workers`` with
        ``num_workers = 1``); None where it does not (a YAML configuration's entry)."""
        return self._integer(module, value, None, scope)

    def integer_literal(self, module: ModuleInfo, value: cst.BaseExpression | None,
                        flags: bool = False) -> IntegerLiteral | None:
        """The integer literal ``value`` is, or the module constant it names (``UNITS``, ``config.UNITS``) is bound
        to, in this module or another module of the repo; with ``flags``, also the literal default of the
        command-line flag it reads (``args.batch_size``, ``FLAGS.batch_size``, :meth:`flag_default`), directly or
        through such a constant."""
        if isinstance(value, cst.Integer):
            return IntegerLiteral(value, module, None)
        if isinstance(value, (cst.Name, cst.Attribute)):
            constant = self.index.constant(module, value)
            if constant is not None and isinstance(constant.value, cst.Integer):
                return IntegerLiteral(constant.value, constant.module, constant.name)
            if flags and constant is not None:
                module, value = constant.module, constant.value
            flag = self.flag_default(module, value) if flags and isinstance(value, cst.Attribute) else None
            if flag is not None and isinstance(flag[1], cst.Integer):
                return IntegerLiteral(flag[1], flag[0], module.node_code(value))
        return None

    @staticmethod
    def is_tensor_call(module: ModuleInfo, expression: cst.BaseExpression) -> bool:
        """``tf.constant(step)`` and the like: already a tensor, whatever Python it was made from."""
        return isinstance(expression, cst.Call) and any(
            n.startswith("tensorflow.") for n in module.qualified_names(expression.func))


def _int32_variable(site: CallSite) -> bool:
    """``tf.Variable(0)`` or ``tf.Variable(0, dtype=tf.int32)``: an int32 variable, by its literal start value."""
    if "tensorflow.Variable" not in site.names:
        return False
    dtype = argument_value(site.node, "dtype")
    return isinstance(argument_value(site.node, "initial_value", 0), cst.Integer) and (
        dtype is None or site.module.qualified_names(dtype) == {"tensorflow.int32"})


def _inside(module: ModuleInfo, node: cst.CSTNode, outer: cst.CSTNode) -> bool:
    """Whether ``node`` is ``outer`` or inside it."""
    while node is not None and node is not outer:
        node = module.parent(node)
    return node is outer


def _bound_otherwise(body: cst.CSTNode) -> set[str]:
    """The names ``body`` binds otherwise than by a plain assignment: augmented, by a loop or a ``with ... as``, or
    declared global or nonlocal."""
    bound = {n.value for node in m.findall(body, m.AugAssign() | m.For() | m.AsName())
             for n in m.findall(node.target if isinstance(node, (cst.AugAssign, cst.For)) else node.name, m.Name())}
    return bound | {n.name.value for node in m.findall(body, m.Global() | m.Nonlocal()) for n in node.names}


def _loop_nest(module: ModuleInfo, node: cst.CSTNode) -> list[cst.For | cst.While]:
    """The loops around ``node`` in its own scope, innermost first."""
    nest = []
    loop = module.enclosing_loop(node)
    while loop is not None:
        nest.append(loop)
        loop = module.enclosing_loop(loop)
    return nest


def _one_sample(module: ModuleInfo, data: cst.BaseExpression, call: cst.Call) -> str | None:
    """Why ``data``, passed to ``call``, is one sample made into a batch (``state[np.newaxis]``,
    ``np.expand_dims(x, 0)``, ``x.reshape(1, -1)``, ``np.array([x])``), or why the call's result is read as one
    (``model.predict(x)[0]``; ``np.argmax(model.predict(x))``, one index over the whole result: one action for one
    state); None when neither shows."""
    code = module.node_code(data)
    if m.matches(data, _ONE_SAMPLE):
        return f"one sample made a batch (`{code}`)"
    parent = module.parent(call)
    if m.matches(parent, m.Subscript(slice=[m.SubscriptElement(m.Index(m.Integer("0")))])) and parent.value is call:
        return f"one sample: only the first row of the result is read (`{module.node_code(parent)}`)"
    reduction = module.parent(parent)
    if m.matches(parent, m.Arg(keyword=None)) and m.matches(reduction, _ARGMAX_OF_ARGUMENT) or m.matches(
            parent, m.Attribute(attr=m.Name("argmax"))) and m.matches(reduction, m.Call(args=[])):
        return f"one sample: the result is reduced to one index (`{module.node_code(reduction)}`)"
    # `q = model.predict(s_t)`, then `action = np.argmax(q)` in the same block
    bound = _value_bound_names(module, call)
    block = module.parent(module.parent(parent)) if bound else None
    if bound and isinstance(block, (cst.IndentedBlock, cst.Module)):
        result = m.Name(value=m.MatchIfTrue(bound.__contains__))
        for reduced in m.findall(block, _ARGMAX_OF_ARGUMENT):
            if m.matches(reduced.args[0].value, result | m.Subscript(
                    value=result, slice=[m.SubscriptElement(m.Index(m.Integer("0")))])):
                return f"one sample: the result is reduced to one index (`{module.node_code(reduced)}`)"
    return None


def _code_around(module: ModuleInfo, function: FunctionInfo | None, node: cst.CSTNode) -> cst.BaseSuite | None:
    """The code whose bindings say what a name read at ``node`` holds: the body of ``function``, the function it is
    in, else (at module level) of the outermost loop around it; None for module-level code in no loop."""
    nest = _loop_nest(module, node)
    return function.node.body if function is not None else nest[-1].body if nest else None


def _bound_to_one_sample(site: CallSite, data: cst.BaseExpression) -> str | None:
    """Why ``data``, a name ``site`` is given, holds one sample made into a batch: the last value the code around
    the call (its function, else the outermost loop around it) binds to the name above the call is one, cast or
    not (``state = np.reshape(state, [1, n])``, then ``mu, std = model.predict(state)``)."""
    scope = _code_around(site.module, site.function, site.node)
    if not isinstance(data, cst.Name) or scope is None:
        return None
    line = site.module.location(site.node).line
    above = [value for value in _loop_bindings(scope).get(data.value, []) if site.module.location(value).line < line]
    if not above:
        return None
    last = above[-1]
    value = last.func.value if m.matches(last, m.Call(func=m.Attribute(attr=m.Name("astype")))) else last
    if not m.matches(value, _ONE_SAMPLE):
        return None
    return f"one sample made a batch (`{data.value} = {site.module.node_code(last)}`)"


def _environment_observation(site: CallSite, data: cst.BaseExpression) -> str | None:
    """Why ``data``, a name ``site`` is given, holds one step's observation: the code around the call (its function,
    else the outermost loop around it) binds the name to what an environment's step returns (``o, r, d =
    self.env.step(a)``), one state each step."""
    scope = _code_around(site.module, site.function, site.node)
    if not isinstance(data, cst.Name) or scope is None:
        return None
    step = next((value for value in _loop_bindings(scope).get(data.value, [])
                 if m.matches(value, _ENVIRONMENT_STEP)), None)
    return None if step is None else f"an environment's observation (`{site.module.node_code(step)}`), one each step"


def _one_batch_sliced(module: ModuleInfo, loop: cst.For | cst.While, data: cst.BaseExpression,
                      call: cst.Call) -> str | None:
    """Why ``data``, passed to ``call`` in ``loop``, is one batch: it is computed (in the loop's body) from a slice as
    wide as the batch the call is given (``x[i:i + batch_size]`` with ``batch_size=batch_size``)."""
    size = argument_value(call, "batch_size")
    if size is None:
        return None
    def code(node: cst.CSTNode) -> str:  # as written, without spaces (`bi+batch_size` is `bi + batch_size`)
        return "".join(module.node_code(node).split())

    width = code(size)
    for expression in _computed_from(data, _loop_bindings(loop.body)):
        for element in m.findall(expression, m.SubscriptElement(slice=m.Slice(upper=m.BinaryOperation()))):
            lower, upper = element.slice.lower, element.slice.upper
            spans = {f"{code(lower)}+{width}"} if lower is not None else set()
            if m.matches(lower, m.BinaryOperation(operator=m.Multiply())):
                spans.add(f"({code(lower.left)}+1)*{width}")
            if code(upper) in spans:
                return f"one batch of `{module.node_code(size)}` sliced each iteration (`{module.node_code(upper)}`)"
    return None


def _computed_from(expression: cst.BaseExpression, bindings: dict[str, list[cst.BaseExpression]]
                   ) -> Iterator[cst.BaseExpression]:
    """``expression``, then the expressions the names it reads are bound to in ``bindings``, and theirs in turn
    (each name followed once): what a value is computed from."""
    pending, seen = [expression], set()
    while pending:
        current = pending.pop()
        yield current
        for name in m.findall(current, m.Name()):
            if name.value not in seen:
                seen.add(name.value)
                pending += bindings.get(name.value, [])


def _draws_at_random(site: CallSite) -> bool:
    """Whether ``site`` draws at random on the host (NumPy's or Python's ``random``)."""
    return any(name.startswith(HOST_RANDOM) for name in site.names)


def _draws_held_items(site: CallSite) -> bool:
    """Whether ``site`` draws a few items from what its object holds (``random.sample(self.samples, n)``,
    ``np.random.choice(len(self.buffer), n)``), from the rows of data it reads an attribute of (``randint(0,
    trainA.shape[0], n_samples)``), or from a global its function reads (a notebook's ``replay_memory =
    deque(maxlen=2000)``, then ``np.random.randint(len(replay_memory), size=batch_size)``): a replay memory's or a
    dataset's minibatch, not a range made up from the function's own parameters, nor a draw for every row of the
    data (``np.random.randint(mat.shape[1], size=len(mat.row))``: a negative item per interaction, a whole epoch).
    ``np.random.randint(0, self.size)`` draws from the range its upper bound gives."""
    positional = [arg.value for arg in site.node.args if arg.keyword is None and not arg.star]
    bounds = positional[:2] if "numpy.random.randint" in site.names else positional[:1]
    high = argument_value(site.node, "high")
    population = cst.Tuple([cst.Element(bound) for bound in [*bounds, *([high] if high is not None else [])]])
    if not _draws_items(site) or not population.elements:
        return False
    keyword, position = next((size for name, size in _DRAW_SIZES.items() if name in site.names), ("size", None))
    size = argument_value(site.node, keyword, position)
    if size is not None and m.findall(size, m.Call(func=m.Name("len")) | m.Attribute(attr=m.Name("shape"))):
        return False
    if m.findall(population, m.Attribute()):
        return True
    function = site.function
    if function is None:
        return False
    local = set(function.params) | set(_loop_bindings(function.node.body))
    called = {id(call.func) for call in m.findall(population, m.Call())}
    return any(name.value not in local for name in m.findall(population, m.Name()) if id(name) not in called)


def _is_input_batch(site: CallSite) -> bool:
    """Whether ``site`` makes an input pipeline's next batch as tensors: an iterator's ``get_next()``, a queue's
    batch (``tf.train.batch``, ``shuffle_batch`` and their ``_join`` forms)."""
    return m.matches(site.node.func, m.Attribute(attr=m.Name("get_next"))) or bool(site.names & QUEUE_BATCHES)


def _draws_items(site: CallSite) -> bool:
    """Whether ``site`` draws items at random from a collection or a range (``random.sample``,
    ``np.random.choice``, ``np.random.randint`` indices)."""
    return any(name.startswith(ITEM_DRAWS) for name in site.names)


_BUILTINS = frozenset(dir(builtins))
# Calls that only convert an element or collect it (`s.numpy().decode()`, `out.append(x)`): no work of their own.
_ELEMENT_CONVERSIONS = frozenset({"numpy", "decode", "append", "extend", "item", "tolist"})


def _element_loop(function: FunctionInfo) -> cst.CSTNode | None:
    """A loop of ``function`` (a ``for`` or a comprehension) over a tensor it was given, copied to NumPy on the way
    or element by element (``for image in features["image_raw"].numpy():``, ``[tokenize(s.numpy().decode()) for s
    in data]`` with ``data`` made from a parameter), that calls something per element besides converting it. None
    when there is none."""
    params = set(function.params) - {"self", "cls"}
    bindings = _loop_bindings(function.node.body)
    comprehensions = m.ListComp() | m.GeneratorExp() | m.SetComp() | m.DictComp()
    for loop in m.findall(function.node.body, m.For() | comprehensions):
        walked = loop.iter if isinstance(loop, cst.For) else loop.for_in.iter
        origins = list(_computed_from(walked, bindings))
        per_element = [loop.body] if isinstance(loop, cst.For) else [
            getattr(loop, part) for part in ("elt", "key", "value") if hasattr(loop, part)]
        if not any(name.value in params for origin in origins for name in m.findall(origin, m.Name())):
            continue
        if not m.findall(loop, NUMPY_CALL) and not any(m.findall(origin, NUMPY_CALL) for origin in origins):
            continue
        if any(not (isinstance(call.func, cst.Attribute) and call.func.attr.value in _ELEMENT_CONVERSIONS)
               and not (isinstance(call.func, cst.Name) and call.func.value in _BUILTINS)
               for part in per_element for call in m.findall(part, m.Call())):
            return loop
    return None


def _importable_as(owner: ModuleInfo, source: str, importer: ModuleInfo) -> bool:
    """Whether ``importer`` imports the repo module ``owner`` by the dotted name ``source``: ``owner`` sits at that
    name's path (``a/b.py`` or ``a/b/__init__.py`` for ``a.b``) below the repo's root or below the importer's own
    folder (a script's folder is on ``sys.path``). Not a module of another example's folder (``19-BERT/bert.py`` for
    ``from bert import ...`` in ``21-translation/``), a subpackage shadowing a library (``tf_agents/typing/`` for
    ``from typing import ...``), nor a submodule inside a folder of the same name (``metrics/metrics.py`` for
    ``from metrics import metrics``). A module that imports relatively (``from .callbacks import ...``) runs only
    inside its package, never as a script from its folder: a sibling ``typing.py`` is not its ``typing``."""
    parts = source.split(".")
    for expected in ((*parts[:-1], f"{parts[-1]}.py"), (*parts, "__init__.py")):
        if owner.path.parts[-len(expected):] == expected:
            root = Path(*owner.path.parts[:-len(expected)])
            return root == Path() or root == importer.path.parent and not any(
                statement.relative for statement in m.findall(importer.tree, m.ImportFrom()))
    return False


def _code_words(code: str) -> frozenset[str]:
    """The words of ``code`` outside its comments: its names, and the words of its strings (``__all__``,
    ``setattr(module, "name", ...)``). A name only a comment mentions (a definition commented out) is not there.
    Code the tokenizer rejects keeps every word."""
    words: set[str] = set()
    try:
        for token in tokenize.generate_tokens(io.StringIO(code).readline):
            if token.type == tokenize.NAME:
                words.add(token.string)
            elif token.type == tokenize.STRING:
                words.update(re.findall(r"\w+", token.string))
    except (tokenize.TokenError, SyntaxError):
        return frozenset(re.findall(r"\w+", code))
    return frozenset(words)


def _read_names(expression: cst.CSTNode) -> set[str]:
    """The plain names ``expression`` reads: not attribute names (``self.q``), keywords, or a lambda's own
    parameters."""
    not_read = {id(attribute.attr) for attribute in m.findall(expression, m.Attribute())}
    not_read |= {id(arg.keyword) for arg in m.findall(expression, m.Arg()) if arg.keyword is not None}
    parameters = {param.name.value for lam in m.findall(expression, m.Lambda()) for param in lam.params.params}
    return {name.value for name in m.findall(expression, m.Name()) if id(name) not in not_read} - parameters


def _loop_bindings(body: cst.BaseSuite) -> dict[str, list[cst.BaseExpression]]:
    """What a loop body assigns to plain names (``batch_x, batch_y = data.next_batch(n)``: the call for both) and to
    items of a dict (``feed[x] = X[i:j]``: under ``feed``), in its own code (not nested definitions)."""
    found: dict[str, list[cst.BaseExpression]] = {}
    for assignment in m.findall(body, m.Assign()):
        for target in assignment.targets:
            if m.matches(target.target, m.Subscript(value=m.Name())):
                found.setdefault(target.target.value.value, []).append(assignment.value)
            for name in _bound_names(target.target):
                found.setdefault(name, []).append(assignment.value)
    return found


def _fed_values(feed: cst.BaseExpression | None, bindings: dict[str, list[cst.BaseExpression]],
                settings: bool = True) -> list[cst.BaseExpression]:
    """The values a ``feed_dict`` hands the graph: a dict literal's, or those of the dict the loop binds the name to
    and its items set afterwards; without ``settings``, not those fed to a placeholder named for a setting
    (:data:`SETTING_FEEDS`)."""
    if isinstance(feed, cst.Dict):
        return [element.value for element in feed.elements if isinstance(element, cst.DictElement) and (
            settings or not _names_setting(element.key))]
    if isinstance(feed, cst.Name):
        return [value for bound in bindings.get(feed.value, ())
                for value in (_fed_values(bound, {}, settings) if isinstance(bound, cst.Dict) else [bound])]
    return []


def _names_setting(key: cst.BaseExpression) -> bool:
    """``learning_rate``, ``self.keep_prob``, ``model.is_training``: a placeholder named for a setting."""
    name = key.attr.value if isinstance(key, cst.Attribute) else key.value if isinstance(key, cst.Name) else None
    return name is not None and bool(SETTING_FEEDS.search(name))


def _made_in_loop(value: cst.BaseExpression, bindings: dict[str, list[cst.BaseExpression]],
                  depth: int = 3) -> list[cst.BaseExpression]:
    """The expressions that make a fed value in each iteration: a slice of an array (``X[i:j]``), or a name the loop
    binds (to a call, a slice, a comprehension, followed through the names those read), or an entry of one
    (``blobs["data"]`` of ``blobs = data_layer.forward()``); nothing for settings (a constant, a flag, a name the
    loop does not bind)."""
    if _makes_batch(value):
        return [value]
    if isinstance(value, cst.Subscript):
        return _made_in_loop(value.value, bindings, depth)
    if not isinstance(value, cst.Name) or value.value not in bindings or depth == 0:
        return []
    made = []
    for bound in bindings[value.value]:
        inner = [e for name in m.findall(bound, m.Name()) if name.value != value.value
                 for e in _made_in_loop(name, bindings, depth - 1)]
        if _makes_batch(bound) or inner:  # `lr = base * decay` makes a setting, not a batch
            made += [bound, *inner]
    return made


def _makes_batch(expression: cst.BaseExpression) -> bool:
    """A slice of an array, a comprehension, or a call other than a graph run (``sess.run(step)`` reads a value)."""
    return m.matches(expression, m.Subscript(slice=[m.SubscriptElement(m.Slice())])) or isinstance(
        expression, cst.ListComp) or (isinstance(expression, cst.Call) and not m.matches(
            expression.func, m.Attribute(attr=m.Name("run") | m.Name("eval"))))


def _value_bound_names(module: ModuleInfo, call: cst.Call) -> set[str]:
    """The plain names bound to what ``call`` returns or a part of it: ``q = sess.run(...)``,
    ``grads = sess.run(...)[0]``, ``a, b = np.argmax(sess.run(...)), c``."""
    node: cst.CSTNode = call
    parent = module.parent(node)
    while isinstance(parent, (cst.BaseExpression, cst.Arg, cst.SubscriptElement, cst.Index, cst.BaseElement)):
        node, parent = parent, module.parent(parent)
    if not isinstance(parent, cst.Assign) or node is not parent.value:
        return set()
    return {name for target in parent.targets for name in _bound_names(target.target)}


def _reads_names(expression: cst.BaseExpression, names: set[str]) -> bool:
    """Whether ``expression`` reads one of the plain ``names`` (:func:`_read_names`)."""
    return bool(_read_names(expression) & names)


def _outer_of(passed: _Passed) -> _Passed | None:
    """What reached the parameters of the function ``passed.site`` is in, where ``passed.outer`` is that (not a
    closure factory's call: see ``_factory_passed``)."""
    outer = passed.outer
    return outer if outer is not None and outer.function is passed.site.function else None


def _enclosing_passed(scope: FunctionInfo | None, value: cst.BaseExpression | None,
                      passed: _Passed | None) -> _Passed | None:
    """What the factory's call passed, where ``value`` is a parameter of the function around the closure ``scope``
    (``filters`` read in the ``layer_fn`` that ``_res_conv(filters=64)`` returns) and ``passed`` says it."""
    if not isinstance(value, cst.Name) or scope is None or scope.outer is None or passed is None:
        return None
    outer = passed.outer
    if value.value in scope.params or value.value not in scope.outer.params or outer is None or \
            outer.function is not scope.outer:
        return None
    return outer


def _enclosing_comprehension(module: ModuleInfo, node: cst.CSTNode) -> cst.CompFor | None:
    """The ``for`` clause of the comprehension whose element ``node`` is part of, when that comes before any loop
    statement or definition around it and has one clause."""
    child, parent = node, module.parent(node)
    while parent is not None and not isinstance(parent, (cst.FunctionDef, cst.Lambda, cst.ClassDef, cst.For,
                                                         cst.While)):
        if isinstance(parent, (cst.ListComp, cst.SetComp, cst.GeneratorExp)) and child is parent.elt:
            return parent.for_in if parent.for_in.inner_for_in is None else None
        child, parent = parent, module.parent(parent)
    return None


def _models_differentiated_by(site: CallSite) -> list[cst.BaseExpression]:
    """For ``tape.gradient(loss, X.trainable_variables)``: each ``X`` whose weights it differentiates; nothing for
    any other call."""
    sources = argument_value(site.node, "sources", 1) if m.matches(site.node.func, _GRADIENT) else None
    return [attribute.value for attribute in m.findall(sources, _TRAINABLE)] if sources is not None else []


def _concatenated_collections(expression: cst.BaseExpression) -> Iterator[cst.List | cst.Tuple | cst.Dict]:
    """The literal lists, tuples and dicts ``expression`` is, or concatenates with ``+``: ``[loss, train_op] +
    extra``."""
    if isinstance(expression, (cst.List, cst.Tuple, cst.Dict)):
        yield expression
    elif isinstance(expression, cst.BinaryOperation) and isinstance(expression.operator, cst.Add):
        yield from _concatenated_collections(expression.left)
        yield from _concatenated_collections(expression.right)


def _names_one_of(expression: cst.BaseExpression, names: frozenset[str]) -> bool:
    """Whether ``expression`` mentions one of ``names`` (as a name or an attribute)."""
    return any(name.value in names for name in m.findall(expression, m.Name()))


def _mentions(node: cst.CSTNode, names: set[str]) -> bool:
    """Whether ``node`` reads one of ``names`` (a name, or ``self.name``)."""
    return bool(m.findall(node, m.Name(value=m.MatchIfTrue(names.__contains__))))


def _assigned_names(assignment: cst.Assign | None) -> set[str]:
    """The names an assignment binds, an attribute by its own name (``self.train_op = ...``: ``train_op``)."""
    found: set[str] = set()
    for target in assignment.targets if assignment is not None else ():
        value = target.target
        parts = [e.value for e in value.elements] if isinstance(value, (cst.Tuple, cst.List)) else [value]
        found |= {part.value if isinstance(part, cst.Name) else part.attr.value
                  for part in parts if isinstance(part, (cst.Name, cst.Attribute))}
    return found


def _fetched_into(assignment: cst.Assign | None, run: cst.Call, name: str) -> cst.BaseExpression | None:
    """The fetch of ``run`` that ``assignment`` binds to ``name``, by position (``_, summary = sess.run([train_op,
    merged])``: ``merged``)."""
    fetches = run.args[0].value if run.args else None
    if assignment is None or len(assignment.targets) != 1 or fetches is None:
        return None
    target = assignment.targets[0].target
    if isinstance(target, cst.Name):
        return fetches if target.value == name else None
    if isinstance(target, (cst.Tuple, cst.List)) and isinstance(fetches, (cst.List, cst.Tuple)) \
            and len(target.elements) == len(fetches.elements):
        return next((fetch.value for bound, fetch in zip(target.elements, fetches.elements)
                     if m.matches(bound.value, m.Name(name))), None)
    return None


def _converted_default(module: ModuleInfo, conversion: cst.BaseExpression, default: cst.SimpleString
                       ) -> cst.BaseExpression | None:
    """The value a string default takes: argparse hands it to ``type`` as it does a value typed on the command line
    (``type=int, default="32"`` is 32). A conversion this cannot run (``type=str2bool, default="n"``) leaves it
    unknown (None)."""
    names = module.qualified_names(conversion)
    if "builtins.str" in names:
        return default
    convert = int if "builtins.int" in names else float if "builtins.float" in names else None
    try:
        return cst.parse_expression(repr(convert(default.evaluated_value))) if convert is not None else None
    except ValueError:
        return None


def _returns_parsed(function: FunctionInfo) -> bool:
    """``return parser.parse_args()``, or the name it bound that to."""
    parsing = m.Call(func=m.Attribute(attr=m.Name(value=m.MatchIfTrue(ARGUMENT_PARSERS.__contains__))))
    parsed = {target.target.value for assign in m.findall(function.node.body, m.Assign(value=parsing))
              for target in assign.targets if isinstance(target.target, cst.Name)}
    return any(m.matches(r.value, parsing) or isinstance(r.value, cst.Name) and r.value.value in parsed
               for r in m.findall(function.node.body, m.Return(value=m.Call() | m.Name())))


def _returns_flags(function: FunctionInfo) -> bool:
    """``return flags.FLAGS`` (TensorFlow 1.x's or absl's flags object), or the name it bound that to."""
    module = function.module

    def flags_object(node: cst.BaseExpression) -> bool:
        return any(n.startswith(FLAG_MODULES) and n.endswith(".FLAGS") for n in module.qualified_names(node))

    bound = {target.target.value for assign in m.findall(function.node.body, m.Assign(value=m.Attribute(
        attr=m.Name("FLAGS")))) if flags_object(assign.value) for target in assign.targets
        if isinstance(target.target, cst.Name)}
    return any(flags_object(r.value) or isinstance(r.value, cst.Name) and r.value.value in bound
               for r in m.findall(function.node.body, m.Return(value=m.Attribute(attr=m.Name("FLAGS")) | m.Name())))


def _namespace_overwritten(call: cst.Call) -> str | None:
    """The name a call writes into wholesale: ``setattr(args, ...)``, ``args.__dict__.update(...)``,
    ``vars(args).update(...)``."""
    func = call.func
    if m.matches(func, m.Name("setattr")) and call.args and isinstance(call.args[0].value, cst.Name):
        return call.args[0].value.value
    if not m.matches(func, m.Attribute(attr=m.Name("update"))):
        return None
    if m.matches(func.value, m.Attribute(value=m.Name(), attr=m.Name("__dict__"))):
        return func.value.value.value
    if m.matches(func.value, m.Call(func=m.Name("vars"), args=[m.Arg(value=m.Name())])):
        return func.value.args[0].value.value
    return None


def _returned_names(body: cst.BaseSuite) -> dict[str, int | None]:
    """The names a function body returns, with their places in a returned tuple (None: returned alone)."""
    found: dict[str, int | None] = {}
    for returned in m.findall(body, m.Return(value=m.Name() | m.Tuple())):
        if isinstance(returned.value, cst.Name):
            found[returned.value.value] = None
        else:
            found.update((element.value.value, place) for place, element in enumerate(returned.value.elements)
                         if isinstance(element.value, cst.Name))
    return found


def _parallel_target(module: ModuleInfo, call: cst.Call) -> str | None:
    """The name a parallel assignment binds ``call`` to: ``d_opt`` for the second call of ``g_opt, d_opt = f(a),
    f(b)``."""
    element = module.parent(call)
    values = module.parent(element) if isinstance(element, cst.Element) else None
    assignment = module.parent(values) if isinstance(values, cst.Tuple) else None
    if not (isinstance(assignment, cst.Assign) and assignment.value is values and len(assignment.targets) == 1):
        return None
    targets = assignment.targets[0].target
    if not (isinstance(targets, cst.Tuple) and len(targets.elements) == len(values.elements)):
        return None
    target = targets.elements[values.elements.index(element)].value
    return target.value if isinstance(target, cst.Name) else None


def _top_level_statement(module: ModuleInfo, node: cst.CSTNode) -> cst.CSTNode:
    """The statement of the module's own body that holds ``node``."""
    while (parent := module.parent(node)) is not None and parent is not module.tree:
        node = parent
    return node


def _visible_from(scope: FunctionInfo | None, functions: list[FunctionInfo]) -> list[FunctionInfo]:
    """Of the functions a bare name used in ``scope`` may refer to, those the name can see: a function defined
    inside another is visible only within it (`single_step` of `main()` is not the `single_step` of `evaluate()`),
    and there it hides a module's function of that name."""
    if len(functions) < 2:
        return functions
    scopes = set()
    while scope is not None:
        scopes.add(id(scope.node))
        scope = scope.outer
    visible = [f for f in functions if f.outer is None or id(f.outer.node) in scopes]
    nested = [f for f in visible if f.outer is not None]
    return nested or visible or functions


def _made_by_an_import(call: CallSite) -> bool:
    """Whether what ``call`` calls is named through an import (``tf.Session()``, ``Session()`` imported from
    TensorFlow), not a method of a local object (``config.get_model()``) nor an item of a table (``MODELS[name]()``)."""
    func = call.node.func
    dotted = cst.helpers.get_full_name_for_node(func) if isinstance(func, (cst.Name, cst.Attribute)) else None
    return dotted is not None and call.module.names.imported(dotted) is not None


def _with_items_naming(module: ModuleInfo, node: cst.CSTNode, name: str) -> list[cst.WithItem]:
    """The items of the ``with`` statements around ``node`` that bind ``name`` (``with tf.Session() as sess:``)."""
    found = []
    current = module.parent(node)
    while current is not None and not isinstance(current, (cst.FunctionDef, cst.Module)):
        if isinstance(current, cst.With):
            found += [item for item in current.items
                      if item.asname is not None and m.matches(item.asname.name, m.Name(name))]
        current = module.parent(current)
    return found


def _cell_of(site: CallSite) -> int | None:
    """The number of the notebook cell ``site`` is in; None in a script."""
    notebook = site.module.notebook
    return notebook.cell_at(site.module.position(site.node).start.line)[0].number if notebook is not None else None


def _unpacked_position(assignment: cst.Assign | None, name: str) -> int | None:
    """Where ``name`` sits in the tuple an assignment unpacks (``model, opt = setup()``: 0 for ``model``)."""
    for target in assignment.targets if assignment is not None else ():
        elements = getattr(target.target, "elements", ())
        for place, element in enumerate(elements):
            if isinstance(element.value, cst.Name) and element.value.value == name:
                return place
    return None


def _applied_function(stage: Stage) -> cst.BaseExpression | None:
    """The per-element function of ``ds.apply(tf.data.experimental.parallel_interleave(f, ...))`` (or of a
    ``map_and_batch``)."""
    applied = argument_value(stage.node, "transformation_func", 0) if stage.op == "apply" else None
    if isinstance(applied, cst.Call) and stage.module.qualified_names(applied.func) & APPLIED_FUNCTION_STAGES:
        return argument_value(applied, "map_func", 0)
    return None


def num_parallel_calls(stage: Stage) -> cst.Arg | None:
    """The argument setting ``num_parallel_calls`` of a map, interleave or batch stage, by keyword or position."""
    return argument(stage.node, "num_parallel_calls", NUM_PARALLEL_CALLS_POSITION.get(stage.op))


def runs_in_parallel(stage: Stage) -> bool:
    """A map, interleave or batch given parallel calls (any but a literal 1): it works ahead, in the background."""
    given = num_parallel_calls(stage)
    return given is not None and not m.matches(given.value, m.Integer("1"))


def batch_parameter(hook: cst.FunctionDef) -> str | None:
    """The name of a Keras callback hook's batch index: the first positional parameter after ``self``."""
    positional = [*hook.params.posonly_params, *hook.params.params]
    return positional[1].name.value if len(positional) > 1 else None


def compiled_function_name(call: cst.Call) -> str | None:
    """The Python function ``tf.function(f)`` compiles, by name: the capture names its calls after it."""
    first = call.args[0] if call.args else None
    return first.value.value if first is not None and first.keyword is None and isinstance(first.value, cst.Name) \
        else None
