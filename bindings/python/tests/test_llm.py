"""The tiny Llama from Python on the sim (examples/llm/tiny_llama.lua, built
by kgen.build): the same tokens as the C product (examples/llm/llm.c,
$KGEN_LLM) for the same file and prompt, a device loop that agrees with
the host loop, and the weight file's errors.

Needs $KGEN_LLM (the llm executable), $KGEN_TINY_GGUF and $KGEN_TINY_HF
(make_tiny_llama's GGUF file and Hugging Face folder; ctest sets them).
"""
import os
import subprocess
import sys
import unittest

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))

import kgen  # noqa: E402
import kgrt  # noqa: E402

ROOT = os.path.normpath(os.path.join(HERE, "..", "..", ".."))
PROMPT = [1, 17, 423, 99, 5, 640, 2]


def env(name):
    v = os.environ.get(name)
    if not v:
        raise RuntimeError("%s is not set (ctest sets it; see bindings/python/README)" % name)
    return v


def generate(m, prompt, n):
    """llm.c's loop: the prompt in one run, then a token a run, greedy."""
    def run(tokens, pos0):
        t = len(tokens)
        m.set_dims(T=t, S=pos0 + t)
        m.set_input("tokens", np.array(tokens, dtype=np.int32))
        m.set_input("pos", np.arange(pos0, pos0 + t, dtype=np.int32))
        m.set_input("last", np.array([t - 1], dtype=np.int32))
        m.set_input("seed", np.array([0], dtype=np.int32))
        # temperature 0: the argmax (top_k 0, top_p 1, min_p 0: off)
        m.set_input("params", np.array([[0, 0, 1, 0]], dtype=np.float32))
        m.run()
        return int(m.output("next_token")[0])
    out = [run(prompt, 0)]
    while len(out) < n:
        out.append(run([out[-1]], len(prompt) + len(out) - 1))
    return out


class LlamaTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.table = kgen.build(os.path.join(ROOT, "examples", "llm", "tiny_llama.lua"), ["gfx1100"]).table()
        cls.dev = kgrt.Device("sim:gfx1100")

    def test_the_same_tokens_as_the_c_product(self):
        path = os.path.join(env("KGEN_TINY_HF"), "model.safetensors")
        w = kgrt.Weights(path)
        self.assertEqual(w.find("model.embed_tokens.weight")["shape"], (1000, 256))
        m = self.dev.load(self.table)
        m.bind_weights(w)
        w.close()
        ours = generate(m, PROMPT, 8)
        # a file without a tokenizer: llm prints the ids
        p = subprocess.run([env("KGEN_LLM"), "--device", "sim:gfx1100", "--tokens",
                            ",".join(map(str, PROMPT)), "-n", "8", path],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, check=True)
        theirs = [int(t) for t in p.stdout.decode().strip().split(",")]
        self.assertEqual(ours, theirs)
        self.assertEqual(len(ours), 8)
        m.unload()

    def test_device_loop_and_host_loop_agree(self):
        w = kgrt.Weights(env("KGEN_TINY_GGUF"))
        self.assertEqual(w.meta_string("general.architecture"), "llama")
        self.assertEqual(w.vocab_size(), 1000)
        m = self.dev.load(self.table)
        m.bind_weights(w, refuse_unused=True)
        host = generate(m, PROMPT, 10)
        m.reset_state()
        first = generate(m, PROMPT, 1)[0]
        m.set_dims(T=1, S=len(PROMPT) + 1)
        m.set_input("tokens", np.array([first], dtype=np.int32))
        m.set_input("pos", np.array([len(PROMPT)], dtype=np.int32))
        m.set_input("last", np.array([0], dtype=np.int32))
        m.link("next_token", "tokens")
        m.link("next_pos", "pos")
        m.step_dim("S", 1)
        a = m.run_steps(5, collect="next_token")
        b = m.run_steps(4, collect="next_token")  # goes on where it stopped
        self.assertEqual(a.shape, (5, 1))
        self.assertEqual([first] + list(a[:, 0]) + list(b[:, 0]), host)
        self.assertEqual(m.output("logits").shape, (1, 1000))
        self.assertEqual(int(m.output("next_pos")[0]), len(PROMPT) + 9)  # the last step ran at 15
        mem = m.memory()
        self.assertGreater(mem["weights"], 4_000_000)
        m.unload()

    def test_weight_errors(self):
        m = self.dev.load(self.table)
        with self.assertRaises(kgrt.Error) as c:
            m.run()
        self.assertEqual(c.exception.status, "FAILED_PRECONDITION")
        # not a weight file
        with self.assertRaises(kgrt.Error) as c:
            kgrt.Weights(os.path.join(ROOT, "examples", "llm", "tiny_llama.lua"))
        self.assertEqual(c.exception.status, "INVALID_ARGUMENT")
        self.assertIn("tiny_llama.lua", c.exception.message)
        m.unload()


if __name__ == "__main__":
    unittest.main()
