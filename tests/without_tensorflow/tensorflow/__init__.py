"""A stand-in for TensorFlow, first on the `PYTHONPATH` of a subprocess that must run without it.

Importing it fails, as on a machine without TensorFlow (the GPU machines here have none), and Keras then
takes TensorFlow as absent: `keras.utils.set_random_seed` skips its `tf.random.set_seed`, which otherwise
imports TensorFlow (about 5 s of CPU) into a JAX process that uses none of it.
"""

raise ImportError("TensorFlow is blocked in this process (tests/without_tensorflow: it must run without it)")
