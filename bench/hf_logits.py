# bench/hf_logits.py - on the GPU machine: a random-init Hugging Face
# LlamaForCausalLM at Llama-3-8B shapes with 2 layers (bf16; norms drawn
# around 1 so they matter), saved as safetensors, then HF's own greedy
# decode of a 37-token prompt for 32 steps, then the same tokens through the
# same weights in float32 (HF's bf16 rounding is itself a few 1e-4 of NMSE
# at these shapes; f32 is the reference both are measured against). Writes
# DIR/model.safetensors (save_pretrained), DIR/hf_logits.bin (bf16) and
# DIR/hf_logits_f32.bin for llama_hf.c, each:
#   i32 prompt_len, i32 steps, i32 vocab, i32 prompt[prompt_len],
#   then per step (0 = the prefill): i32 token fed next, f32 logits[vocab]
#   usage: python3 hf_logits.py DIR
import struct, sys, torch
from transformers import LlamaConfig, LlamaForCausalLM

out = sys.argv[1]
PROMPT, STEPS, V = 37, 32, 128256
torch.manual_seed(0)
cfg = LlamaConfig(hidden_size=4096, intermediate_size=14336, num_hidden_layers=2,
                  num_attention_heads=32, num_key_value_heads=8, vocab_size=V,
                  rope_theta=500000.0, max_position_embeddings=4096, rms_norm_eps=1e-5,
                  tie_word_embeddings=False)
torch.set_default_dtype(torch.bfloat16)
with torch.device("cuda"):
    m = LlamaForCausalLM(cfg)
torch.set_default_dtype(torch.float32)
m.eval()
with torch.no_grad():
    for name, p in m.named_parameters():
        if "norm" in name:
            p.copy_(1 + 0.1 * torch.randn_like(p))
m.save_pretrained(out, safe_serialization=True)
g = torch.Generator().manual_seed(1)
ids = torch.randint(0, V, (1, PROMPT), generator=g).cuda()


def decode(path, forced):
    """Greedy decode (forced: feed these tokens instead); returns the tokens."""
    toks = []
    with open(path, "wb") as f:
        f.write(struct.pack("<3i", PROMPT, STEPS, V))
        f.write(struct.pack("<%di" % PROMPT, *ids[0].tolist()))
        with torch.no_grad():
            r = m(ids, use_cache=True)
            past = r.past_key_values
            for step in range(STEPS + 1):
                logits = r.logits[0, -1].float()
                tok = forced[step] if forced else int(logits.argmax())
                toks.append(tok)
                f.write(struct.pack("<i", tok))
                f.write(logits.cpu().numpy().astype("<f4").tobytes())
                if step < STEPS:
                    r = m(torch.tensor([[tok]], device="cuda"), past_key_values=past,
                          use_cache=True)
                    past = r.past_key_values
    return toks


toks = decode(out + "/hf_logits.bin", None)
torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False
m = m.float()
decode(out + "/hf_logits_f32.bin", toks)
print("hf_logits: wrote", out)
