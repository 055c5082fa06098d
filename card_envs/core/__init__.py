"""Game-independent machinery: the engine protocol, the AEC env, the batched env, kernels."""
