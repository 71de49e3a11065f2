"""TFD003: Python functions called from a tf.data map, a compiled step or a TF1 training graph (``py_function``,
``numpy_function``, ``py_func``)."""

from __future__ import annotations

from typing import Iterable

from advisor.rule import (PYTHON_FUNCTION_OPS, CallSite, Confidence, Evidence, Example, Finding, HotContext, Rule,
                          RuleContext, UNCONSUMED, Verdict, anchor, brief, cached_results, typical)


class PyFunction(Rule):
    code = "TFD003"
    name = "py-function"
    title = "Python function called per element of a dataset or per step of a compiled function"
    rationale = (
        "`tf.py_function` and `tf.numpy_function` leave the TensorFlow graph to run Python. In a `Dataset.map` "
        "that happens once per element, holding the GIL: `num_parallel_calls` cannot run it in parallel, and "
        "tf.data cannot fuse or vectorize it. In a `tf.function` step it forces a round trip to the Python "
        "interpreter every step and keeps the step from running on the device or under XLA; built into a "
        "TensorFlow 1.x graph, every `sess.run` that needs its result does the same, copying its inputs to the "
        "host (a Faster R-CNN's NumPy proposal layer). Python that waits "
        "(sleeping, file or network I/O) releases the GIL: in a map, parallel calls help it (TFD002 says so); "
        "Python that computes needs rewriting, which no tool can do mechanically: use TensorFlow ops "
        "(`tf.math`, `tf.image`, `tf.strings`), or do the work once, before training."
    )
    speedup_model = ("the profile's Python-function ops (EagerPyFunc, PyFunc) as a share of the step: the most "
                     "that rewriting them in TensorFlow ops can save; more parallel calls save nothing (GIL).")
    valid = (
        Example("""
            import tensorflow as tf
            def scale(x):
                return tf.cast(x, tf.float32) / 255.0
            ds = tf.data.Dataset.range(10).map(scale)
            """),
        Example("""
            import tensorflow as tf
            def load(path):
                return tf.numpy_function(read_file, [path], tf.string)
            paths = load(tf.constant("a.txt"))
            """, note="numpy_function called once, eagerly, outside any map or compiled function"),
        Example("""
            import tensorflow as tf
            def to_upper(x):
                return tf.py_function(lambda s: s.numpy().upper(), [x], tf.string)
            class Pipeline:
                def map(self, fn):
                    return fn
            Pipeline().map(to_upper)
            """, note="not a dataset map"),
        Example("""
            import time
            import tensorflow as tf
            def fetch(key):
                time.sleep(0.01)  # a remote store
                return key
            ds = tf.data.Dataset.range(10).map(lambda k: tf.numpy_function(fetch, [k], tf.int64))
            """, note="Python that waits: parallel calls help it, and TFD002 reports the map"),
        Example("""
            import gym
            import tensorflow as tf
            env = gym.make("CartPole-v1")

            def env_step(action):
                state, reward, done, truncated, info = env.step(action)
                return state.astype("float32"), float(reward), done

            @tf.function
            def run_episode(initial_state, steps):
                state = initial_state
                for t in tf.range(steps):
                    action = tf.argmax(policy(state[None]), axis=-1)[0]
                    state, reward, done = tf.numpy_function(env_step, [action], [tf.float32, tf.float64, tf.bool])
            """, note="the environment a compiled rollout steps: its Python is the environment, not work to rewrite"),
    )
    invalid = (
        Example("""
            import tensorflow as tf
            def normalize(x):
                return tf.py_function(lambda t: t.numpy() / 255.0, [x], tf.float32)
            ds = tf.data.Dataset.range(10).map(normalize, num_parallel_calls=tf.data.AUTOTUNE)
            """, line=3, note="py_function in a mapped function: parallel calls cannot help, the GIL serializes it"),
        Example("""
            import tensorflow as tf
            ds = tf.data.Dataset.range(10)
            ds = ds.map(lambda x: tf.py_function(decode, [x], tf.float32))
            """, line=3, note="in a mapped lambda"),
        Example("""
            import tensorflow as tf

            def log_stats(loss):
                tf.numpy_function(print_loss, [loss], [])

            @tf.function
            def train_step(x, y):
                loss = tf.reduce_mean(tf.square(x - y))
                log_stats(loss)
                return loss
            """, line=4, note="reached from a tf.function step through a helper"),
        Example("""
            import numpy as np
            import tensorflow as tf

            def iou(y_true, y_pred):
                def score(y_true, y_pred):
                    intersection = (y_true * y_pred).sum()
                    return np.float32(intersection / (y_true.sum() + y_pred.sum() - intersection + 1e-15))
                return tf.numpy_function(score, [y_true, y_pred], tf.float32)

            metrics = ["accuracy", iou]
            model.compile(optimizer="adam", loss="binary_crossentropy", metrics=metrics)
            model.fit(train_dataset, epochs=10)
            """, line=8, note="a metric given to compile: Keras runs it inside every compiled train step"),
        Example("""
            import tensorflow as tf

            def proposal_layer(scores, boxes):
                rois = tf.py_func(nms_proposals, [scores, boxes], tf.float32)
                return tf.reshape(rois, [-1, 5])

            def draw_boxes(image, boxes):
                drawn = tf.py_func(draw, [image, boxes], tf.uint8)
                return tf.summary.image("boxes", drawn)

            scores, boxes = rpn(images)
            loss = tf.reduce_mean(proposal_layer(scores, boxes))
            summary = draw_boxes(images, boxes)
            train_op = tf.train.MomentumOptimizer(0.001, 0.9).minimize(loss)
            with tf.Session() as sess:
                for step in range(70000):
                    sess.run(train_op)
            """, line=4, note="an op of the TensorFlow 1.x graph every `sess.run` of the training loop evaluates "
                              "(the summary's drawing runs only when summaries are written)"),
    )

    def check(self, ctx: RuleContext) -> Iterable[Finding]:
        sites = [(site, context) for site in ctx.index.calls_to(*PYTHON_FUNCTION_OPS)
                 if (context := ctx.queries.hot_context(site) or ctx.queries.session_graph_context(site)) is not None]
        for site, context in sites:
            # Python that waits is TFD002's; Python that is the environment of a compiled rollout is no rewrite
            waits = context.in_dataset and ctx.queries.waits(site)
            if not waits and ctx.queries.environment_stepped_by(site) is None:
                yield self._finding(ctx, site, context, sites)

    def _finding(self, ctx: RuleContext, site: CallSite, context: HotContext,
                 sites: list[tuple[CallSite, HotContext]]) -> Finding:
        module = site.module
        called = module.node_code(site.node.func)
        if context.in_dataset:
            advice = ": `num_parallel_calls` cannot parallelize it; rewrite it with TensorFlow ops."
        elif context.in_graph:
            advice = ", and copies its inputs to the host; rewrite it with TensorFlow ops."
        else:
            advice = "; rewrite it with TensorFlow ops or move it out of the step."
        evidence = [Evidence.source(context.where)]
        # Where the repo shows no training, nothing tells a step from evaluation: per step, as the name suggests.
        per_step = context.in_dataset or context.in_graph or site.function is None or not ctx.queries.trains \
            or ctx.queries.runs_in_step(site.function)
        if not per_step:
            evidence.append(Evidence.source("no training step calls it: it runs for evaluation or in a callback, "
                                            "not on every training step"))
        if context.stage is not None and context.stage.makes_datasets:
            # The function makes a whole dataset per element it is given (a file's records): it runs per file.
            per_step = False
            evidence.append(Evidence.source(
                f"it runs in the function `{context.stage.op}` makes a dataset with, once per element of the outer "
                "dataset (a file, a shard), not once per training example"))
        if context.stage is not None and not ctx.queries.pipelines_through(context.stage):
            per_step = False
            evidence.append(UNCONSUMED)
        use = ctx.queries.evaluation_only(context.stage) if context.stage is not None else None
        if use is not None:
            per_step = False
            evidence.append(Evidence.source(f"its dataset feeds {use} only: not the input every training step "
                                            "waits for"))
        cache = ctx.queries.cached_after(context.stage) if context.stage is not None else None
        if cache is not None:
            per_step = False
            evidence.append(cached_results(cache))
        condition = ctx.queries.condition_around(site) if context.in_graph else None
        if condition is not None:
            per_step = False
            evidence.append(Evidence.source(
                f"the graph gets it only on one branch of `if {brief(module.node_code(condition.test))}:` "
                f"({module.location(condition).display}): whether a training run builds it, the source does not say"))
        static = Verdict(Confidence.LIKELY if per_step else Confidence.POSSIBLE, typical("py_function"),
                         tuple(evidence))
        verdict = ctx.verdicts.python_function_ops(site, context, sites, static)
        message = f"`{called}` runs Python {context.what}, holding the GIL{advice}"
        # Per element of a dataset: reached where what consumes the dataset is (a guide's two shown images are not).
        reach = ctx.queries.stage_reach(context.stage) if context.stage is not None else \
            ctx.queries.reach(module, site.node)
        return self.finding(module, anchor(site.node), message, verdict, reach=reach, end_node=site.node)
