"""Fixed inputs of Spec/vectors and the writer of their files; the answers come from tresorref."""
