"""TFH002: a custom training step that runs eagerly, called once per batch from a Python loop."""

from __future__ import annotations

from typing import Iterable

import libcst as cst

from advisor.codemods.tf_function import AddTfFunction
from advisor.rule import (CONFIRMED_EAGER_SHARE_PCT, EAGER_OPS_MIN, Applicability, CallSite, Confidence, EagerSwitch,
                          Evidence, Example, Finding, FixAvailability, FunctionInfo, ModuleInfo, Reach, Rule,
                          RuleContext, SideEffect, TrainingLoop, Verdict, brief, typical)


class EagerTrainStep(Rule):
    code = "TFH002"
    name = "eager-train-step"
    title = "Training step runs eagerly from a Python loop"
    rationale = (
        "A custom training step that is not compiled by `tf.function` runs eagerly: each op of the forward pass, "
        "the gradient and the optimizer update is dispatched one at a time from Python, and nothing is fused. On "
        "small and medium models that dispatch costs more than the math; compiling the step was measured 2-4x "
        "faster per epoch on a 2-core CPU. TensorFlow's profiler cannot say so on its own: such a loop has no "
        "step markers."
    )
    fix = "Decorate the step with `@tf.function`."
    fix_availability = FixAvailability.SOMETIMES
    fix_applicability = Applicability.UNSAFE
    why_unsafe = (
        "Python in the step (print, list appends, counters, `.numpy()`, NumPy and `random` draws, also in repo "
        "functions it calls) runs only while the function is traced, not every step; the fix is offered only when "
        "no such code would change what the step computes, and when the step neither iterates over tensors in "
        "Python, creates variables per call, nor branches on tensors in a way AutoGraph cannot convert."
    )
    speedup_model = ("the step's share outside kernels (Python and eager op dispatch) measured in a custom loop's "
                     "capture is the most compiling removes; confirmed when that share is at least "
                     f"{CONFIRMED_EAGER_SHARE_PCT:.0f}% with {EAGER_OPS_MIN}+ ops dispatched per step. Without a "
                     "profile, the typical range of compiling an eager step.")
    valid = (
        Example("""
            import tensorflow as tf

            tf.config.run_functions_eagerly(False)
            model = tf.keras.applications.ResNet50(weights=None)
            model.compile(optimizer="adam", loss="sparse_categorical_crossentropy", run_eagerly=False)
            model.fit(dataset, epochs=10)
            """, note="the switches off: Keras compiles its step"),
        Example("""
            import tensorflow as tf

            @tf.function
            def train_step(x, y):
                with tf.GradientTape() as tape:
                    loss = loss_fn(y, model(x, training=True))
                grads = tape.gradient(loss, model.trainable_variables)
                optimizer.apply_gradients(zip(grads, model.trainable_variables))
                return loss

            for x, y in dataset:
                train_step(x, y)
            """),
        Example("""
            import tensorflow as tf

            def train_step(x, y):
                with tf.GradientTape() as tape:
                    loss = loss_fn(y, model(x, training=True))
                grads = tape.gradient(loss, model.trainable_variables)
                optimizer.apply_gradients(zip(grads, model.trainable_variables))
                return loss

            step = tf.function(train_step)
            for x, y in dataset:
                step(x, y)
            """, note="compiled by a wrapper call"),
        Example("""
            import tensorflow as tf

            def train_step(x, y):
                with tf.GradientTape() as tape:
                    loss = loss_fn(y, model(x, training=True))
                grads = tape.gradient(loss, model.trainable_variables)
                optimizer.apply_gradients(zip(grads, model.trainable_variables))

            @tf.function
            def train_epoch(dataset):
                for x, y in dataset:
                    train_step(x, y)
            """, note="called from a compiled function: AutoGraph turns the loop into a graph loop"),
        Example("""
            import tensorflow as tf

            def train_step(x, y):
                with tf.GradientTape() as tape:
                    loss = loss_fn(y, model(x, training=True))
                grads = tape.gradient(loss, model.trainable_variables)
                optimizer.apply_gradients(zip(grads, model.trainable_variables))

            train_step(x, y)
            """, note="called once, not per batch"),
        Example("""
            import tensorflow as tf

            class Trainer:
                def __init__(self, model):
                    self.model = model
                    self.train_step = tf.function(self.train_step)

                def train_step(self, x, y):
                    with tf.GradientTape() as tape:
                        loss = loss_fn(y, self.model(x, training=True))
                    grads = tape.gradient(loss, self.model.trainable_variables)
                    optimizer.apply_gradients(zip(grads, self.model.trainable_variables))

                def fit(self, dataset):
                    for x, y in dataset:
                        self.train_step(x, y)
            """, note="a method compiled through its object in the constructor"),
        Example("""
            import tensorflow as tf

            class Agent:
                def __init__(self):
                    self._train_fn = tf.function(self._train)

                def train(self, experience):
                    return self._train_fn(experience)

                def _train(self, experience):
                    for epoch in range(4):
                        with tf.GradientTape() as tape:
                            loss = self.loss(experience)
                        grads = tape.gradient(loss, self.variables)
                        self.optimizer.apply_gradients(zip(grads, self.variables))
                    return loss
            """, note="a loop that trains inline, in a method that runs only through its compiled form"),
    )
    invalid = (
        Example("""
            import tensorflow as tf

            model = tf.keras.applications.ResNet50(weights=None)
            model.compile(optimizer="adam", loss="sparse_categorical_crossentropy", run_eagerly=True)
            model.fit(dataset, epochs=10)
            """, line=4, note="a debugging switch left on: `fit` runs every step eagerly"),
        Example("""
            import tensorflow as tf

            model = tf.keras.applications.ResNet50(weights=None)
            model.compile(optimizer="adam", loss="sparse_categorical_crossentropy")
            model.run_eagerly = True
            model.fit(dataset, epochs=10)
            """, line=5, note="the same switch set on the model after `compile`"),
        Example("""
            import tensorflow as tf

            class Encoder(tf.keras.layers.Layer):
                def __init__(self):
                    super().__init__(dynamic=True)
                    self.dense = tf.keras.layers.Dense(512)

                def call(self, x):
                    return tf.reduce_mean(self.dense(x), axis=1)

            model = tf.keras.Sequential([Encoder(), tf.keras.layers.Dense(10)])
            model.compile(optimizer="adam", loss="mse")
            model.fit(dataset, epochs=10)
            """, line=5, note="a layer made `dynamic`: Keras runs the model holding it eagerly"),
        Example("""
            import tensorflow as tf

            tf.config.run_functions_eagerly(True)

            @tf.function
            def train_step(x, y):
                with tf.GradientTape() as tape:
                    loss = loss_fn(y, model(x, training=True))
                grads = tape.gradient(loss, model.trainable_variables)
                optimizer.apply_gradients(zip(grads, model.trainable_variables))

            for x, y in dataset:
                train_step(x, y)
            """, line=3, note="every tf.function then runs eagerly, the compiled step too"),
        Example("""
            import tensorflow as tf

            def train_step(x, y):
                with tf.GradientTape() as tape:
                    loss = loss_fn(y, model(x, training=True))
                grads = tape.gradient(loss, model.trainable_variables)
                optimizer.apply_gradients(zip(grads, model.trainable_variables))
                return loss

            for epoch in range(3):
                for x, y in dataset:
                    train_step(x, y)
            """, line=3, fixed="""
            import tensorflow as tf

            @tf.function
            def train_step(x, y):
                with tf.GradientTape() as tape:
                    loss = loss_fn(y, model(x, training=True))
                grads = tape.gradient(loss, model.trainable_variables)
                optimizer.apply_gradients(zip(grads, model.trainable_variables))
                return loss

            for epoch in range(3):
                for x, y in dataset:
                    train_step(x, y)
            """),
        Example("""
            from tensorflow import GradientTape

            def train_step(x, y):
                with GradientTape() as tape:
                    loss = loss_fn(y, model(x, training=True))
                    print("tracing" if step == 0 else "")
                optimizer.minimize(loss, model.trainable_variables, tape=tape)

            while True:
                train_step(*next(iterator))
            """, line=3, fixed="""
            from tensorflow import GradientTape
            import tensorflow as tf

            @tf.function
            def train_step(x, y):
                with GradientTape() as tape:
                    loss = loss_fn(y, model(x, training=True))
                    print("tracing" if step == 0 else "")
                optimizer.minimize(loss, model.trainable_variables, tape=tape)

            while True:
                train_step(*next(iterator))
            """, note="a print that would then run only while tracing: the fix is still offered, and unsafe"),
        Example("""
            import tensorflow as tf

            def train_step(x, y):
                with tf.GradientTape() as tape:
                    loss = loss_fn(y, model(x, training=True))
                grads = tape.gradient(loss, model.trainable_variables)
                optimizer.apply_gradients(zip(grads, model.trainable_variables))
                print(loss.numpy())

            for x, y in dataset:
                train_step(x, y)
            """, line=3, note="`.numpy()` fails inside tf.function: no patch, and the finding says why"),
        Example("""
            import tensorflow as tf

            def main():
                for x, y in dataset:
                    with tf.GradientTape() as tape:
                        loss = loss_fn(y, model(x, training=True))
                    grads = tape.gradient(loss, model.trainable_variables)
                    optimizer.apply_gradients(zip(grads, model.trainable_variables))
            """, line=5, note="a step written inline in the loop: reported at its GradientTape block, no patch"),
        Example("""
            import tensorflow as tf

            def grad(model, x, y):
                with tf.GradientTape() as tape:
                    loss = loss_fn(y, model(x, training=True))
                return loss, tape.gradient(loss, model.trainable_variables)

            for x, y in dataset:
                loss, grads = grad(model, x, y)
                optimizer.apply_gradients(zip(grads, model.trainable_variables))
            """, line=9, note="the loop applies what a helper's tape computes: reported at the helper's call"),
        Example("""
            import tensorflow as tf

            def train_step(x, y):
                with tf.GradientTape() as tape:
                    loss = loss_fn(y, model(x, training=True))
                grads = tape.gradient(loss, model.trainable_variables)
                optimizer.apply_gradients(zip(grads, model.trainable_variables))
                scale = tf.Variable(1.0)
                return loss * scale

            for x, y in dataset:
                train_step(x, y)
            """, line=3, note="a variable created on every call fails inside tf.function: no patch"),
        Example("""
            import numpy as np
            import tensorflow as tf

            def update(buffer):
                batch = buffer[np.random.choice(len(buffer), 32)]
                with tf.GradientTape() as tape:
                    loss = loss_fn(model(batch))
                grads = tape.gradient(loss, model.trainable_variables)
                optimizer.apply_gradients(zip(grads, model.trainable_variables))

            for episode in range(100):
                update(replay_buffer)
            """, line=4, note="NumPy draws the minibatch once, while tracing: compiled, the step would train on "
                              "one minibatch forever, so no patch"),
        Example("""
            import tensorflow as tf

            def update_policy(states, actions):
                for _ in range(10):
                    with tf.GradientTape() as tape:
                        loss = loss_fn(policy(states), actions)
                    grads = tape.gradient(loss, policy.trainable_variables)
                    optimizer.apply_gradients(zip(grads, policy.trainable_variables))

            for states, actions in rollouts:
                update_policy(states, actions)
            """, line=3, fixed="""
            import tensorflow as tf

            @tf.function
            def update_policy(states, actions):
                for _ in range(10):
                    with tf.GradientTape() as tape:
                        loss = loss_fn(policy(states), actions)
                    grads = tape.gradient(loss, policy.trainable_variables)
                    optimizer.apply_gradients(zip(grads, policy.trainable_variables))

            for states, actions in rollouts:
                update_policy(states, actions)
            """, note="the step's own loop of updates is part of the step: one finding, at the step"),
    )

    def check(self, ctx: RuleContext) -> Iterable[Finding]:
        handled = set()  # steps compiled, or reported as a whole: a loop written inside one is part of it
        for function in ctx.queries.training_steps:
            if ctx.queries.is_compiled(function):
                handled.add(id(function.node))
                continue
            calls = ctx.queries.per_batch_calls(function)
            if calls:
                handled.add(id(function.node))
                yield self._finding(ctx, function, calls)
        for loop in ctx.queries.training_loops:
            around = ctx.queries.enclosing_function(loop.module, loop.node)
            if loop.inline_step and (around is None or id(around.node) not in handled):
                yield self._inline_finding(ctx, loop)
        for switch in ctx.queries.eager_switches:
            yield self._switch_finding(ctx, switch)

    def _switch_finding(self, ctx: RuleContext, switch: EagerSwitch) -> Finding:
        """Compilation turned off by a debugging switch: ``compile(run_eagerly=True)``, ``model.run_eagerly =
        True``, a layer's ``dynamic=True`` or ``tf.config.run_functions_eagerly(True)`` (no patch: whether the run
        still needs it, only its author knows)."""
        module = switch.module
        reach = ctx.queries.reach(module, switch.node)
        if switch.layer is not None:
            message = (f"`dynamic=True` marks `{switch.layer.name}` as a layer that runs only "
                       "eagerly, so Keras runs every training step of a model holding it eagerly: `fit` dispatches "
                       "each op of the forward pass, the gradient and the update from Python, and nothing is fused. "
                       "Drop it once the layer's `call` computes with TensorFlow ops alone, to train with the "
                       "compiled step.")
        elif switch.keras:
            given = module.node_code(switch.value)
            default = "" if given == "True" else \
                f" (`{given}` defaults to True, and no call of `{switch.function.name}` sets it otherwise)"
            setting = "`run_eagerly=True`" if switch.call is not None else \
                f"`{module.node_code(switch.node.targets[0].target)} = {given}`"
            message = (f"{setting}{default} makes Keras run every training step eagerly: `fit` dispatches "
                       "each op of the forward pass, the gradient and the update from Python, and nothing is fused. "
                       "It is a debugging switch; turn it off to train with the compiled step.")
        else:
            message = (f"`{module.node_code(switch.node).strip()}` makes every `tf.function` run eagerly, the "
                       "training step's too: each op is dispatched from Python. It is a debugging switch; remove it "
                       "(or pass False) to train with compiled steps.")
        evidence = [Evidence.source("the program's training reaches this switch" if reach is Reach.TRAINING else
                                    "a switch for the whole program, set where it runs")]
        condition = None if switch.keras else ctx.queries.condition_around(switch.call)
        if condition is not None:
            evidence.append(Evidence.source(
                f"only where `if {brief(module.node_code(condition.test))}:` "
                f"({module.location(condition).display}) holds: a mode the run opts into, which the source does not "
                "say a training run picks"))
        kept = ctx.queries.kept_working_by(switch)
        if kept is not None:
            # Turning the switch off would break the run: the code it keeps eager is the change to make first.
            function, effect = kept
            message += (f" `{function.name}` needs it as written: rewrite its host computation with TensorFlow ops "
                        "first.")
            evidence.append(Evidence.source(
                f"the code it keeps eager needs it: in `{function.name}`, {effect.what} "
                f"({function.module.location(effect.node).display}) {effect.consequence}"))
        unfitted = switch.keras and not ctx.queries.keras_trains_near(module)
        if unfitted:
            evidence.append(Evidence.source(
                "no `fit` or `train_on_batch` in this module or the modules importing it: the switch changes only "
                "Keras' own loops, and the model may train in a loop of the repo's, which it does not touch"))
        verdict = Verdict(Confidence.POSSIBLE if condition is not None or unfitted or kept is not None
                          else Confidence.LIKELY, typical("tf_function"), tuple(evidence))
        return self.finding(module, switch.anchor, message, verdict, reach=reach)

    def _inline_finding(self, ctx: RuleContext, loop: TrainingLoop) -> Finding:
        """A step written inline in the loop, reported at its GradientTape block: compiling it means moving it into
        a function first (no patch)."""
        module = loop.module
        at = module.location(loop.node).display
        tapes = ctx.queries.gradient_tapes(module, loop.node.body)
        helper = loop.tape_helper
        step = tapes[0][0] if tapes else helper.node if helper is not None else loop.node
        if helper is not None:
            called = f"`{module.node_code(helper.node.func)}`"
            message = (f"The training loop at {at} gets its gradients from {called}, which opens a GradientTape, "
                       "and updates the weights in its own body, so every op of every step is dispatched eagerly "
                       f"from Python. Move the update into a function with the call of {called}, decorate it with "
                       "`@tf.function` and call it in the loop; no automatic patch moves it.")
            evidence = [Evidence.source(f"the step is written in the loop at {at}, its tape in {called}, called "
                                        f"on {module.location(helper.node).line_label}")]
        else:
            message = (f"The training loop at {at} opens a GradientTape and updates the weights in its own body, "
                       "so every op of every step is dispatched eagerly from Python. Move the step into a function "
                       "decorated with `@tf.function` and call it in the loop; no automatic patch moves it.")
            evidence = [Evidence.source(f"the step is written inline in the loop at {at}")]
        forward = [e for e in ctx.queries.host_calls_in(module, step) if e.in_forward]
        if forward:
            message += _forward_note(module, forward)
        evidence += [_effect_evidence(module, effect) for effect in forward]
        compiled = _compiled_forward_evidence(ctx.queries.compiled_forward(module, step))
        evidence += compiled
        static = Verdict(Confidence.POSSIBLE if forward or compiled else Confidence.LIKELY, typical("tf_function"),
                         tuple(evidence))
        verdict = ctx.verdicts.eager_dispatch(ctx.verdicts.per_step_cost([(loop.loop_module, loop.loop)], static))
        return self.finding(module, step, message, verdict, reach=ctx.queries.reach(module, loop.node),
                            end_node=step.body.body[0] if isinstance(step, cst.With) and step.body.body else None)

    def _finding(self, ctx: RuleContext, function: FunctionInfo, calls: list[CallSite]) -> Finding:
        module = function.module
        loops = {id(loop): (loop, module) for loop, module in map(ctx.queries.iteration_loop, calls)}
        evidence = [Evidence.source(f"called once per iteration of the loop at {module.location(loop).display}")
                    for loop, module in loops.values()]
        effects = ctx.queries.side_effects(function)
        evidence += [_effect_evidence(module, effect) for effect in effects]
        message = (f"`{function.name}` opens a GradientTape and updates the weights but is not compiled with "
                   f"`tf.function`, so every op of every step is dispatched eagerly from Python.")
        breaking = [e for e in effects if e.breaks_step]
        forward = [e for e in breaking if e.in_forward]
        if forward:
            message += _forward_note(module, forward)
        elif breaking:
            lines = ", ".join(f"{e.what} ({module.location(e.node).line_label})" for e in breaking)
            message += (f" No automatic patch: {lines} would fail or change meaning inside a compiled step; move "
                        f"it out of `{function.name}` (return the tensor and convert it in the loop, every N steps), "
                        f"then add `@tf.function`.")
        # Called only as its loop ends (`if done: train_step(...); break`): once per episode, not per step (unless
        # the step loops over batches itself: an epoch of updates per call).
        epoch = ctx.queries.loops_over_batches(function)
        once = not epoch and all(ctx.queries.leaves_its_loop(call) for call in calls)
        if once:
            evidence.append(Evidence.source("each call ends its loop (a `break` follows it): it runs once per run "
                                            "of that loop, such as an episode, not every iteration"))
        episodes = [] if epoch or once else [ctx.queries.episode_before(call) for call in calls]
        if episodes and all(episodes):
            played, where = episodes[0], "an episode its loop plays first"
        else:
            played = None if epoch or once else ctx.queries.episode_in(function)
            where = "an episode it plays itself first"
        # (a step that loops over its batches too: PPO's epochs over a rollout, every N environment steps)
        rollouts = [] if played is not None or once else [ctx.queries.rollout_before(call) for call in calls]
        if rollouts and all(rollouts):
            played, where = rollouts[0], "the environment steps of the interval it runs on"
        if played is not None:
            once = True
            evidence.append(Evidence.source(
                f"each call follows {where} (`{played.module.node_code(played.node.func)}(...)` in a "
                f"loop, {played.module.location(played.node).display}): one update per many environment steps, "
                "which take most of the time"))
        compiled = _compiled_forward_evidence(ctx.queries.compiled_forward(module, function.node.body))
        evidence += compiled
        # Per-weight updates in Python loops (an EMA of the weights, a decoupled weight decay) stay eager however
        # compiled the models are: one op per weight every step, which a compiled step makes one graph.
        updates = ctx.queries.eager_weight_updates(function, depth=1) if compiled else None
        if updates is not None:
            evidence.append(Evidence.source(
                f"but it also updates each weight in a Python loop (`{updates.module.node_code(updates.node.func)}`, "
                f"{updates.module.location(updates.node).display}): one eager op per weight every step"))
        static = Verdict(Confidence.POSSIBLE if forward or once or (compiled and updates is None) else
                         Confidence.LIKELY, typical("tf_function"), tuple(evidence))
        # (a step that loops over batches itself is an epoch: how often it is called says nothing of its steps)
        if not epoch:
            static = ctx.verdicts.per_step_cost([(owner, loop) for loop, owner in loops.values()], static)
        verdict = ctx.verdicts.eager_dispatch(static)
        # Where it runs eagerly: a Keras `train_step` override that `fit` compiles trains, but the eager loop calling
        # it may be one no run reaches.
        reach = min((ctx.queries.reach(call.module, call.node) for call in calls), key=lambda r: r.rank)
        return self.finding(module, function.node.name, message, verdict, reach=reach,
                            codemod=None if breaking else AddTfFunction)


def _compiled_forward_evidence(methods: list[FunctionInfo]) -> list[Evidence]:
    """Why compiling the step gains less: the models it runs compile their forward pass themselves."""
    if not methods:
        return []
    where = ", ".join(f"`{f.key.rsplit('.', 2)[-2]}.{f.name}` ({f.module.location(f.node.name).display})"
                      for f in methods[:3])
    return [Evidence.source(f"the models it runs are compiled already ({where}, `tf.function`): only the loss, "
                            "the gradients' bookkeeping and the weight update are dispatched eagerly")]


def _effect_evidence(module: ModuleInfo, effect: SideEffect) -> Evidence:
    return Evidence.source(f"{module.location(effect.node).line_label}: {effect.what} {effect.consequence} under "
                           "tf.function")


def _forward_note(module: ModuleInfo, forward: list[SideEffect]) -> str:
    """Why compiling the step is no quick fix: the models it runs compute with host values in their forward pass."""
    calls = ", ".join(f"{e.what} ({module.location(e.node).line_label})" for e in forward)
    return (f" But the model it runs reads host values in its forward pass ({calls}): a compiled step cannot run it "
            "until that model computes with tensor ops only, so compiling is a rewrite of the model, not of the "
            "step.")
