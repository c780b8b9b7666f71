"""The evolve stage: Algorithm 1 assembled from its registered parts, run over every pair, resumable."""
