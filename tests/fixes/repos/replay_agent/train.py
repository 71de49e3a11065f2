"""A DQN agent on a toy environment: it acts with `predict` on one state, and replays its memory one transition at
a time with `predict` and `fit` (the Keras calls TFH007 turns into their one-batch forms).

Run: python train.py [--steps N]
"""

import argparse
import random

import numpy as np
from tensorflow import keras


class Walk:
    """A one-dimensional walk: reward for moving right, done after 10 moves."""

    def reset(self):
        self.position, self.moves = 0.0, 0
        return np.array([[self.position, 0.0, 0.0, 1.0]], dtype=np.float32)

    def step(self, action):
        self.position += 1.0 if action else -1.0
        self.moves += 1
        state = np.array([[self.position, self.moves, 0.0, 1.0]], dtype=np.float32)
        return state, float(action), self.moves >= 10


class Agent:
    def __init__(self):
        self.memory = []
        self.model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(24, activation="relu"),
                                       keras.layers.Dense(2)])
        self.model.compile(optimizer=keras.optimizers.Adam(0.001), loss="mse")

    def act(self, state):
        if random.random() < 0.1:
            return random.randrange(2)
        return int(np.argmax(self.model.predict(state, verbose=0)[0]))

    def replay(self, batch_size):
        for state, action, reward, next_state, done in random.sample(self.memory, batch_size):
            target = reward if done else reward + 0.95 * np.amax(self.model.predict(next_state, verbose=0)[0])
            target_f = self.model.predict(state, verbose=0)
            target_f[0][action] = target
            self.model.fit(state, target_f, epochs=1, verbose=0)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=200)
    args = parser.parse_args()

    random.seed(0)
    env, agent = Walk(), Agent()
    state = env.reset()
    for step in range(args.steps):
        action = agent.act(state)
        next_state, reward, done = env.step(action)
        agent.memory.append((state, action, reward, next_state, done))
        state = env.reset() if done else next_state
        if len(agent.memory) >= 2:
            agent.replay(2)


if __name__ == "__main__":
    main()
