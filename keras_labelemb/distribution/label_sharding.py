"""A `LayoutMap` that shards the label side of a model's label heads along the label axis (model parallelism)."""

import re

import keras

from keras_labelemb.layers.label_head import LABEL_AXIS_TENSORS, LabelHead
from keras_labelemb.layers.walk_layers import walk_layers


def label_sharding_layout_map(model, device_mesh=None, model_axis="model"):
    """A `keras.distribution.LayoutMap` splitting every label head of `model` along its label axis.

    With hundreds of thousands of labels, the label side of a head is what
    outgrows one device: for a `GileHead` the word vectors read for the
    descriptions `(L, Lw, d)`, `E` `(L, d)`, `g_out(E) = σ(E U)` `(L, d_j)`
    and the logits `(B, L)`; for a `LinearHead` its `(d_h, L)` kernel. The
    map returned lays all of them out along `model_axis` of `device_mesh`,
    so each of its `n` devices holds `L / n` labels:

    - the weights each head lists in `label_axis_variables()` (a
      `LinearHead`'s kernel and bias, a DRILL head's per-label bias, the word
      table when the vocabulary is the label set) are sharded on their label
      axis;
    - the label-side tensors each head lays out by name
      (`<head path>/label_embeddings` and `<head path>/logits`, see
      `LabelHead.lay_out_label_axis`) get a layout sharded on their label
      axis, and XLA lays out what lies between them alike (the description
      word vectors, `g_out(E)`); the logits are sharded over the mesh's
      other axis, if any, on the batch axis.

    Everything else (the encoder, `U`, `V`, the word table of a classifier)
    stays replicated unless you add keys to the map (it is a plain
    `LayoutMap`). Sharding changes where values live, not what they are:
    the model computes the outputs it computes unsharded (up to the order
    of float sums).

    Layouts of variables are fixed when the variables are created, and the
    keys are the paths of `model`'s variables and heads, so build the model
    once to read them, then again, with the same layer names, under the
    distribution (the builders of `keras_labelemb.models` name their layers,
    so they do):

        mesh = keras.distribution.DeviceMesh((1, 2), ("batch", "model"), keras.distribution.list_devices())
        layout_map = label_sharding_layout_map(build_model(), mesh)
        with keras.distribution.ModelParallel(layout_map=layout_map, batch_dim_name="batch").scope():
            model = build_model()          # its label side is now split over 2 devices

    Keras' distribution API runs on the JAX backend. Label counts must
    divide evenly over the `model_axis` devices for per-label weights (a
    `ValueError` says so); a label-side tensor that does not (the last chunk
    of `predict_top_k`, say) is left to XLA, unsharded.

    Args:
        model: a built Keras model with one or more `LabelHead`s (found
            with `walk_layers`, nested models included).
        device_mesh: a `keras.distribution.DeviceMesh` with an axis named
            `model_axis`. Default: every device on that axis,
            `DeviceMesh((1, n), ("batch", model_axis))`.
        model_axis: the mesh axis the labels are split over. Default `"model"`.

    Returns:
        A `LayoutMap` for `keras.distribution.ModelParallel(layout_map=...)`.

    Example:

    >>> from keras_labelemb.models import gile_wan
    >>> model = gile_wan(30, np.array([[2, 3], [4, 0]]), max_tokens=6, units=4, joint_dim=4)
    >>> mesh = keras.distribution.DeviceMesh((1, 1), ("batch", "model"), keras.distribution.list_devices()[:1])
    >>> layout_map = label_sharding_layout_map(model, mesh)
    >>> sorted(layout_map)
    ['gile_head/label_embeddings', 'gile_head/logits']
    >>> layout_map["gile_head/logits"].axes
    ('batch', 'model')
    """
    if not isinstance(model, keras.Model):
        raise ValueError(f"`model` must be a keras.Model. Received: model={model!r}")
    heads = [layer for layer in walk_layers(model) if isinstance(layer, LabelHead)]
    if not heads:
        raise ValueError(f"`model` has no label head (a LabelHead such as GileHead). Received: model={model.name!r}")
    unbuilt = [head.name for head in heads if not head.built or head.path is None]
    if unbuilt:
        raise ValueError(
            f"The variable paths are read from a built model; these heads are not built: {unbuilt}. "
            f"Received: model={model.name!r}"
        )
    if device_mesh is None:
        devices = keras.distribution.list_devices()
        device_mesh = keras.distribution.DeviceMesh((1, len(devices)), ("batch", model_axis), devices)
    if not isinstance(device_mesh, keras.distribution.DeviceMesh):
        raise ValueError(f"`device_mesh` must be a keras.distribution.DeviceMesh. Received: {device_mesh!r}")
    axis_names = tuple(device_mesh.axis_names)
    if model_axis not in axis_names:
        raise ValueError(
            f"`model_axis` must name an axis of the device mesh {axis_names}. Received: model_axis={model_axis!r}"
        )
    others = [name for name in axis_names if name != model_axis]
    batch_axis = others[0] if len(others) == 1 else None
    layout_map = keras.distribution.LayoutMap(device_mesh)

    written = set()

    def put(path, axes):
        # Exact paths, escaped: LayoutMap matches keys as regular expressions too (and its `in` always
        # answers True, so the keys written are kept here).
        key = re.escape(path)
        if key not in written:
            written.add(key)
            layout_map[key] = keras.distribution.TensorLayout(axes, device_mesh)

    model_size = device_mesh.shape[axis_names.index(model_axis)]
    for head in heads:
        for variable, axis in head.label_axis_variables():
            if variable.shape[axis] % model_size:
                raise ValueError(
                    f"{variable.path} has {variable.shape[axis]} labels on axis {axis}, which do not divide evenly "
                    f"over the {model_size} devices of mesh axis {model_axis!r} (JAX places only even shards): "
                    f"use a label count divisible by {model_size}. Received: device_mesh with shape {device_mesh.shape}"
                )
            put(variable.path, tuple(model_axis if i == axis else None for i in range(len(variable.shape))))
        reads_labels = head.embedding is not None or head.label_dim is not None  # not a LinearHead
        for name in LABEL_AXIS_TENSORS if reads_labels else ("logits",):
            put(f"{head.path}/{name}", (batch_axis, model_axis) if name == "logits" else (model_axis, None))
    return layout_map
