"""TFD004: training batches made by Python (``Dataset.from_generator``, a Python iterator feeding the loop)."""

from __future__ import annotations

from typing import Iterable

import libcst as cst
import libcst.matchers as m

from advisor.rule import (CallSite, Confidence, Evidence, Example, FedBatches, Finding, FunctionInfo, MappedFunction,
                          ModuleInfo, Pipeline, Rule, RuleContext, Stage, TrainingLoop, Verdict, argument_value, brief,
                          cached_results, typical)


class PythonInput(Rule):
    code = "TFD004"
    name = "python-input"
    title = "Training batches are made by Python code, one at a time"
    rationale = (
        "`Dataset.from_generator` calls a Python generator for every element, under the GIL: tf.data can neither "
        "run it in parallel nor fuse it, and it is limited to one core. A Python iterator that a custom loop "
        "iterates over (`for x, y in Batches():`) is worse: each batch is made between two steps, with no overlap "
        "at all. When the data is in memory, `Dataset.from_tensor_slices` reads it in TensorFlow; when it is in "
        "files, `TFRecordDataset` or `list_files(...).interleave(...)` with parallel maps does; either way, end "
        "the pipeline with `.prefetch(tf.data.AUTOTUNE)` so input overlaps the step."
    )
    speedup_model = ("the capture's generator iterator time, bounded by the time the step waits for input; without a "
                     "profile, the typical range of parallelizing input.")
    valid = (
        Example("""
            import tensorflow as tf
            ds = tf.data.Dataset.from_tensor_slices((images, labels)).batch(32).prefetch(tf.data.AUTOTUNE)
            model.fit(ds)
            """),
        Example("""
            import tensorflow as tf
            def stream():
                yield from range(10)
            for value in tf.data.Dataset.from_generator(stream, output_signature=tf.TensorSpec((), tf.int64)):
                print(value)
            """, note="not training"),
        Example("""
            import numpy as np
            from tensorflow import keras

            images, labels = np.load("x.npy"), np.load("y.npy")
            model.fit(images, labels, batch_size=32, epochs=5)
            """, note="arrays in memory: Keras slices them in TensorFlow"),
        Example("""
            import numpy as np
            import tensorflow as tf

            def noise(size):
                return np.random.normal(size=(size, 128)).astype("float32")

            @tf.function
            def train_step(images, z):
                with tf.GradientTape() as tape:
                    loss = loss_fn(generator(z), images)
                optimizer.apply_gradients(zip(tape.gradient(loss, generator.trainable_variables),
                                              generator.trainable_variables))

            for images in dataset:
                train_step(images, noise(64))
            """, note="noise drawn with NumPy each step is no batch worth a pipeline"),
        Example("""
            import numpy as np
            from PIL import Image
            from tensorflow import keras

            class Images(keras.utils.Sequence):
                def __len__(self):
                    return len(paths) // 32

                def __getitem__(self, index):
                    return np.stack([np.asarray(Image.open(p)) for p in paths[index * 32:(index + 1) * 32]])

            model.fit(Images(), epochs=5, workers=8, use_multiprocessing=True)
            """, note="eight processes make batches side by side"),
        Example("""
            import tensorflow as tf

            images, labels = tf.train.shuffle_batch([image, label], batch_size=32, capacity=1000,
                                                    min_after_dequeue=500)
            train_op = tf.train.AdamOptimizer(1e-3).minimize(loss)
            with tf.Session() as sess:
                for step in range(10000):
                    sess.run(train_op, feed_dict={keep_prob: 0.5, learning_rate: 1e-3 * 0.99 ** step})
            """, note="TensorFlow 1.x: the graph reads its own input; feed_dict only sets hyperparameters"),
        Example("""
            import numpy as np
            import tensorflow as tf

            real = dataset.make_one_shot_iterator().get_next()
            train_op = tf.train.AdamOptimizer(learning_rate).minimize(gan_loss(real, style))
            with tf.Session() as sess:
                for step in range(100000):
                    codes = np.random.normal(size=[1, 1, 1, 8])
                    sess.run(train_op, feed_dict={style: codes, learning_rate: 1e-4})
            """, note="TensorFlow 1.x: the images come from tf.data; feed_dict carries only NumPy noise"),
        Example("""
            import numpy as np
            from tensorflow import keras

            images, labels = np.load("x.npy"), np.load("y.npy")
            for step in range(10000):
                picked = np.random.randint(0, len(images), 32)
                discriminator.train_on_batch(images[picked], labels[picked])
            """, note="a Keras loop slicing arrays in memory: little to overlap"),
        Example("""
            import tensorflow as tf

            def scaled(batch):
                images, labels = batch
                return images.numpy() / 255.0, labels.numpy()

            for batch in tf.data.Dataset.from_tensor_slices((images, labels)).batch(64).prefetch(1):
                x, y = scaled(batch)
                model.train_on_batch(x, y)
            """, note="the batch copied to NumPy once, with no Python work per element"),
    )
    invalid = (
        Example("""
            import numpy as np
            import tensorflow as tf

            def samples():
                for image, label in zip(np.load("x.npy"), np.load("y.npy")):
                    yield image / 255.0, label

            ds = tf.data.Dataset.from_generator(samples, output_types=(tf.float32, tf.int64)).batch(32)
            model.fit(ds, epochs=5)
            """, line=8),
        Example("""
            import numpy as np
            import tensorflow as tf

            class Batches:
                def __iter__(self):
                    return self
                def __next__(self):
                    return np.load("x.npy")[:32], np.load("y.npy")[:32]

            def step(x, y):
                with tf.GradientTape() as tape:
                    loss = loss_fn(y, model(x))
                optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables),
                                              model.trainable_variables))

            for x, y in Batches():
                step(x, y)
            """, line=16, note="a Python iterator feeding a custom loop: no overlap with the step"),
        Example("""
            import numpy as np
            from PIL import Image
            from tensorflow import keras

            def batches(paths, labels, size):
                while True:
                    picked = np.random.choice(len(paths), size)
                    images = np.stack([np.asarray(Image.open(paths[i]).resize((224, 224))) for i in picked])
                    yield images / 255.0, labels[picked]

            def wrapper(paths, labels, size):
                return batches(paths, labels, size)

            model.fit_generator(wrapper(paths, labels, 32), steps_per_epoch=1000, epochs=10)
            """, line=14, note="a Python generator, reached through the function that returns it, feeding Keras: "
                               "one background thread makes every batch"),
        Example("""
            import numpy as np
            import tensorflow as tf

            class Loader:
                def get_batch(self, size):
                    picked = np.random.choice(len(self.files), size)
                    return np.stack([np.load(self.files[i]) for i in picked])

            @tf.function
            def train_step(images):
                with tf.GradientTape() as tape:
                    loss = loss_fn(model(images))
                optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables),
                                              model.trainable_variables))

            loader = Loader()
            for step in range(10000):
                train_step(loader.get_batch(32).astype("float32"))
            """, line=18, note="each step's batch read by a repo method and handed straight to the step"),
        Example("""
            import numpy as np
            import tensorflow as tf
            from PIL import Image

            train_op = tf.train.AdamOptimizer(1e-3).minimize(loss)
            with tf.Session() as sess:
                for step in range(10000):
                    files = paths[step * 32:(step + 1) * 32]
                    images = np.stack([np.asarray(Image.open(f)) for f in files])
                    sess.run(train_op, feed_dict={x: images, keep_prob: 0.5})
            """, line=10, note="TensorFlow 1.x: images decoded in Python, then fed, every step"),
        Example("""
            import imageio
            import numpy as np
            from tensorflow import keras

            class Pairs:
                def get_batch(self, size):
                    picked = np.random.choice(len(self.low), size)
                    return {"lr": np.stack([imageio.imread(self.low[i]) for i in picked]),
                            "hr": np.stack([imageio.imread(self.high[i]) for i in picked])}

            pairs = Pairs()
            model = keras.models.load_model("sr.h5")
            for step in range(10000):
                batch = pairs.get_batch(16)
                model.train_on_batch(batch["lr"], batch["hr"])
            """, line=15, note="Keras' `train_on_batch`, fed each step by a repo method that reads images"),
        Example("""
            import tensorflow as tf

            dataset = tf.data.TFRecordDataset(files).map(parse, num_parallel_calls=8).batch(128).prefetch(1)
            next_batch = tf.compat.v1.data.make_one_shot_iterator(dataset).get_next()
            train_op = tf.compat.v1.train.AdamOptimizer(1e-3).minimize(loss)
            with tf.compat.v1.Session() as sess:
                for step in range(10000):
                    images, labels = sess.run(next_batch)
                    sess.run(train_op, feed_dict={x: images, y: labels})
            """, line=9, note="TensorFlow 1.x: each batch fetched out of the graph's own pipeline, then fed back in"),
        Example("""
            import tensorflow as tf

            def to_ids(batch):
                texts, labels = batch
                ids = [tokenizer.encode(text.numpy().decode()) for text in texts]
                return tf.ragged.constant(ids).to_tensor(), labels

            @tf.function
            def train_step(x, y):
                with tf.GradientTape() as tape:
                    loss = loss_fn(y, model(x))
                optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables),
                                              model.trainable_variables))

            for batch in tf.data.TextLineDataset("train.tsv").map(parse).batch(64).prefetch(tf.data.AUTOTUNE):
                x, y = to_ids(batch)
                train_step(x, y)
            """, line=16, note="each batch of a tf.data pipeline tokenized text by text in Python before its step"),
    )

    def check(self, ctx: RuleContext) -> Iterable[Finding]:
        generators: dict[int, tuple[Stage, list[Pipeline]]] = {}
        for pipeline in ctx.index.pipelines():
            source = pipeline.stages[0]
            if source.op == "from_generator" and ctx.queries.feeds_training(pipeline):
                generators.setdefault(id(source.node), (source, []))[1].append(pipeline)
        for source, pipelines in generators.values():
            yield self._generator_finding(ctx, source, pipelines)
        for loop in [*ctx.queries.training_loops, *ctx.queries.keras_batch_loops]:
            batches = ctx.queries.python_batches(loop)
            processed = ctx.queries.host_processed_batches(loop) if batches is None else None
            if batches is not None:
                yield self._iterator_finding(ctx, loop, *batches)
            elif processed is not None:
                yield self._host_processing_finding(ctx, loop, *processed)
        for training, batches, makers, keras_images in ctx.queries.python_fed_trainings:
            if _parallel_workers(ctx, training) is None:  # several workers already make batches side by side
                yield self._keras_finding(ctx, training, batches, makers, keras_images)
        for loop in ctx.queries.session_loops:
            batches = ctx.queries.python_batches(loop)
            fed = ctx.queries.fed_batches(loop) if batches is None else None
            if batches is not None:
                yield self._iterator_finding(ctx, loop, *batches)
            elif fed is not None and ctx.queries.environment_step(loop) is None and \
                    ctx.queries.environment_around(loop) is None:
                # An agent feeds the transitions it just played (or samples its replay memory): no reader could
                # make those ahead of the step.
                yield (self._round_trip_finding if fed.fetched else self._feed_finding)(ctx, loop, fed)

    def _generator_finding(self, ctx: RuleContext, source: Stage, pipelines: list[Pipeline]) -> Finding:
        sinks = ", ".join(dict.fromkeys(f"{p.sink.described} at {p.sink.module.location(p.sink.node).display}"
                                        for p in pipelines))
        work = ctx.queries.generator_work(source)
        evidence = [Evidence.source(f"`Dataset.from_generator` feeds {sinks}")]
        if work:
            evidence.append(Evidence.source("the generator computes in Python: " + ", ".join(dict.fromkeys(
                f"`{w.module.node_code(w.node.func)}`" for w in work[:3]))))
        elif work is None:
            generator = argument_value(source.node, "generator", 0)
            evidence.append(Evidence.source(
                f"what the generator (`{source.module.node_code(generator) if generator is not None else '?'}`) does "
                "per element is not in the source advisor can follow: a profile would tell whether it keeps up"))
        elif (opened := ctx.queries.lines_walked(source)) is not None:
            evidence.append(Evidence.source(
                f"the generator reads a file line by line (`{brief(opened.module.node_code(opened.node))}`, "
                f"{opened.module.location(opened.node).line_label}, buffered reads) and otherwise does plain Python "
                "per element, no array or image work: it holds the steps back only if they are short"))
        else:
            evidence.append(Evidence.source("the generator reads no file and does no array or image work per element "
                                            "(plain Python only): it holds the steps back only if they are short"))
        uses = {ctx.queries.evaluation_use(p) for p in pipelines}
        if None not in uses:
            evidence.append(Evidence.source(f"it feeds only {' and '.join(sorted(uses))}: not the input every "
                                            "training step waits for"))
        cache = ctx.queries.cached_after(source)
        if cache is not None:
            evidence.append(cached_results(cache))
        # A generator that only hands out values already in memory costs little per element; one whose elements are
        # cached runs in the first epoch only.
        static = Verdict(Confidence.LIKELY if work and None in uses and cache is None else Confidence.POSSIBLE,
                         typical("parallel_map"), tuple(evidence))
        verdict = ctx.verdicts.python_source(source, static)
        message = ("`Dataset.from_generator` makes every element in Python, one at a time under the GIL: read the "
                   "data with tf.data instead (`from_tensor_slices` for arrays in memory, `TFRecordDataset` or "
                   "`list_files().interleave()` for files).")
        reach = min((ctx.queries.pipeline_reach(p) for p in pipelines), key=lambda r: r.rank)
        return self.finding(source.module, source.anchor, message, verdict, reach=reach, end_node=source.node)

    def _iterator_finding(self, ctx: RuleContext, loop: TrainingLoop, batches: cst.CSTNode,
                          makers: list[FunctionInfo], keras_images: bool) -> Finding:
        evidence, works = _batch_evidence(ctx, makers, keras_images)
        producers = [found for maker in makers if (found := ctx.queries.background_producer(
            MappedFunction(maker.node.body, maker.module, maker))) is not None]
        if producers:
            # Made ahead by workers: the step waits only when they fall behind, or to copy the batch in.
            works = False
            workers = producers[0]
            code = brief(workers.module.node_code(workers.node.func))
            evidence.append(Evidence.source(
                f"background workers make the batches ahead of the steps (`{code}`, "
                f"{workers.module.location(workers.node).display}): the loop waits only when they fall behind"))
        description = loop.description
        made = ("a queue Python workers fill: the step waits whenever they fall behind, and each batch passes "
                "through the training thread" if producers else
                "Python: each one is made after the previous step ends, with no overlap")
        message = (f"{description[0].upper()}{description[1:]} takes its batches from {made}. A `tf.data` pipeline "
                   "ending in `.prefetch(tf.data.AUTOTUNE)` makes the next batch while the step runs.")
        verdict = ctx.verdicts.per_step_cost([(loop.loop_module, loop.loop)], Verdict(
            Confidence.LIKELY if works else Confidence.POSSIBLE, typical("prefetch"), tuple(evidence)))
        return self.finding(loop.module, batches, message, verdict, reach=ctx.queries.reach(loop.module, loop.node))

    def _host_processing_finding(self, ctx: RuleContext, loop: TrainingLoop, call: cst.Call, function: FunctionInfo,
                                 element_loop: cst.CSTNode) -> Finding:
        """Each batch of the loop's input finished in Python, element by element, between two steps."""
        module = loop.module
        where = function.module.location(element_loop).display
        header = _loop_header(function.module, element_loop) if isinstance(element_loop, cst.For) else brief(
            function.module.node_code(element_loop.for_in))
        description = loop.description
        message = (f"{description[0].upper()}{description[1:]} hands each batch to `{function.name}`, which copies it "
                   "to the host and works through it one element at a time in Python before the step can start: "
                   "that runs in one thread between two steps, whatever the pipeline prefetches. Do the work in the "
                   "pipeline (a `map` with `num_parallel_calls=tf.data.AUTOTUNE`, in TensorFlow ops: "
                   "`tf.io.decode_image`, `tf.strings` or TensorFlow Text for tokens), or once before training.")
        evidence = (Evidence.source(f"`{brief(module.node_code(call))}` ({module.location(call).line_label}) takes "
                                    f"the loop's batch and makes the step's input"),
                    Evidence.source(f"`{function.name}` copies the batch to NumPy and loops over its elements: "
                                    f"`{header}` ({where})"))
        verdict = ctx.verdicts.per_step_cost([(loop.loop_module, loop.loop)],
                                             Verdict(Confidence.LIKELY, typical("prefetch"), evidence))
        return self.finding(module, call, message, verdict, reach=ctx.queries.reach(module, loop.node))

    def _keras_finding(self, ctx: RuleContext, training: CallSite, batches: cst.CSTNode,
                       makers: list[FunctionInfo], keras_images: bool) -> Finding:
        module = training.module
        # Keras overlaps the batch making with the step: only reading and decoding outlasts it.
        evidence, works = _batch_evidence(ctx, makers, keras_images, heavy_only=True)
        method = training.node.func.attr.value
        message = (f"`{method}` takes its batches from Python: Keras makes them one at a time in a background "
                   "thread, under the GIL the training loop needs too, so a batch that takes longer to make than a "
                   "step leaves the accelerator waiting. A `tf.data` pipeline (parallel `map`, then "
                   "`.prefetch(tf.data.AUTOTUNE)`) makes batches in parallel; a `keras.utils.Sequence` can also run "
                   "in several processes (`workers=N, use_multiprocessing=True`).")
        verdict = Verdict(Confidence.LIKELY if works else Confidence.POSSIBLE, typical("parallel_map"),
                          tuple(evidence))
        return self.finding(module, batches, message, verdict, reach=ctx.queries.reach(module, training.node))

    def _feed_finding(self, ctx: RuleContext, loop: TrainingLoop, fed: FedBatches) -> Finding:
        module = loop.module
        made = ", ".join(dict.fromkeys(f"`{brief(module.node_code(e))}`" for e in fed.made[:3]))
        evidence = [Evidence.source(f"the loop makes each batch in Python ({made}) and feeds it through `feed_dict`")]
        if fed.work:
            evidence.append(Evidence.source("which reads or decodes on the host: " + ", ".join(_calls_named(fed.work))))
            confidence = Confidence.LIKELY
        elif fed.sample_loops:
            evidence.append(_sample_loops_evidence(fed.sample_loops))
            confidence = Confidence.LIKELY
        else:
            evidence.append(Evidence.source("it slices or draws data already in memory: each step waits only for "
                                            "that and the copy"))
            confidence = Confidence.POSSIBLE
        description = loop.description
        message = (f"{description[0].upper()}{description[1:]} feeds batches made in Python through `feed_dict`: "
                   "the session starts the step only once the batch is made and copied in, with no overlap. A "
                   "`tf.data` pipeline whose iterator's `get_next()` is the model's input (parallel `map`, then "
                   "`.prefetch()`) prepares batches while the step runs.")
        verdict = ctx.verdicts.per_step_cost([(loop.loop_module, loop.loop)],
                                             Verdict(confidence, typical("prefetch"), tuple(evidence)))
        return self.finding(module, fed.feed, message, verdict, reach=ctx.queries.reach(module, loop.node))

    def _round_trip_finding(self, ctx: RuleContext, loop: TrainingLoop, fed: FedBatches) -> Finding:
        module = loop.module
        fetch = brief(module.node_code(fed.made[0]))
        evidence = (Evidence.source(f"each batch is fetched out of the input pipeline (`{fetch}`) and fed back "
                                    "through `feed_dict`"),)
        message = (f"The training loop at {module.location(loop.node).display} runs the graph once to fetch each "
                   "batch from its input pipeline (a `tf.data` iterator, a queue) into NumPy, then again to train on "
                   "it, copying the batch into host memory and back every step. Build the model on the pipeline's "
                   "tensors instead (the iterator's `get_next()`, the queue's batch): the batch then stays in "
                   "TensorFlow, and the pipeline prepares the next one while the step runs.")
        verdict = ctx.verdicts.per_step_cost([(loop.loop_module, loop.loop)],
                                             Verdict(Confidence.LIKELY, typical("prefetch"), evidence))
        return self.finding(module, fed.feed, message, verdict, reach=ctx.queries.reach(module, loop.node))


def _loop_header(module: ModuleInfo, loop: cst.For | cst.While) -> str:
    """``for i in range(batch_size)`` or ``while len(batch) < size``, cut short."""
    header = f"for {module.node_code(loop.target)} in {module.node_code(loop.iter)}" if isinstance(loop, cst.For) \
        else f"while {module.node_code(loop.test)}"
    return brief(header)


def _calls_named(calls: list[CallSite], limit: int = 3) -> list[str]:
    """The first calls, one per place (`Image.open(p).convert` and `Image.open` are one), with where they are."""
    by_place = {call.module.location(call.node).display: call for call in calls}
    return [f"`{brief(call.module.node_code(call.node.func))}` ({place})"
            for place, call in list(by_place.items())[:limit]]


def _batch_evidence(ctx: RuleContext, makers: list[FunctionInfo], keras_images: bool,
                    heavy_only: bool = False) -> tuple[list[Evidence], bool]:
    """Where the batches are made and the Python work that makes them; whether there is such work. ``heavy_only``:
    only reading and decoding count (work that outlasts a step it overlaps)."""
    if keras_images:
        return [Evidence.source("each batch comes from a Keras ImageDataGenerator iterator, which reads and augments "
                                "images in Python")], True
    if not makers:
        return [Evidence.source("each batch comes from a Keras ImageDataGenerator `flow` over arrays in memory with "
                                "no augmentation: slicing NumPy arrays may keep up with the step")], False
    makes = ", ".join(f"`{maker.name}` ({maker.module.location(maker.node.name).display})" for maker in makers)
    evidence = [Evidence.source(f"each batch comes from {makes}")]
    work_of = ctx.queries.reading_work if heavy_only else ctx.queries.python_work
    work = [w for maker in makers for w in work_of(MappedFunction(maker.node.body, maker.module, maker))]
    costs = {} if heavy_only else {what: node for maker in makers
                                   for what, node in ctx.queries.host_costs(maker, every_call=True).items()}
    # A Python loop over the samples delays a step that waits for its batch; where Keras makes the batches ahead in
    # a thread (``heavy_only``), only work that outlasts the step counts
    loops = [] if heavy_only else [(maker, loop) for maker in makers
                                   if (loop := ctx.queries.sample_loop(maker)) is not None]
    if costs or work:
        evidence.append(Evidence.source("which does " + ", ".join([*costs, *_calls_named(work)])))
    elif loops:
        evidence.append(_sample_loops_evidence(loops))
    else:
        evidence.append(Evidence.source("advisor sees no file read or image decoding in it: NumPy on data in memory "
                                        "may keep up with the step"))
    return evidence, bool(costs or work or loops)


def _sample_loops_evidence(loops: list[tuple[FunctionInfo, cst.For | cst.While]]) -> Evidence:
    """Where the batch makers make their samples one at a time in Python loops (:meth:`sample_loop`)."""
    named = ", ".join(f"`{_loop_header(maker.module, loop)}` in `{maker.name}` ({maker.module.location(loop).display})"
                      for maker, loop in loops[:2])
    return Evidence.source(f"which makes its samples one at a time in a Python loop: {named}")


def _parallel_workers(ctx: RuleContext, training: CallSite) -> cst.Arg | None:
    """The argument that makes Keras run the batch source in several workers: ``workers`` above 1 (a literal, or
    what the source sets it to), ``use_multiprocessing=True``, or both set from a configuration's entries the
    source does not show (``workers=cfg["num_workers"], use_multiprocessing=cfg["num_workers"] > 1``, read from
    YAML: the program is built to make its batches in parallel). A flag the source cannot resolve
    (``workers=args.workers``) says nothing: its default is mostly 1."""
    given = {arg.keyword.value: arg for arg in training.node.args if arg.keyword is not None}
    workers, processes = given.get("workers"), given.get("use_multiprocessing")
    count = ctx.queries.integer_value(training.module, workers.value, training.function) \
        if workers is not None else None
    if count is not None and count > 1:
        return workers
    if processes is not None and m.matches(processes.value, m.Name("True")):
        return processes
    configured = workers is not None and count is None and isinstance(workers.value, cst.Subscript) and \
        processes is not None and not m.matches(processes.value, m.Name("False") | m.Name("None") | m.Integer())
    return workers if configured else None
