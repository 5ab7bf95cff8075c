"""Stand-in models: what the sandbox's ``acl.mdl.load_from_file`` loads instead of a compiled .om.

    from sandbox.models import zoo
    zoo("resnet50").save("resnet50.om")          # the ResNet-50 sample's model path
    model_id, ret = acl.mdl.load_from_file("resnet50.om")

``Model`` and ``Tensor`` describe one of your own (model.py); ``zoo(name)`` gives one of the
package's (zoo.py): ``"tiny_mlp"``, small enough to read in full, and ``"resnet50"``, an image
classifier with ResNet-50's inputs, outputs, weight size and batch-latency curve.  These names
are the sandbox's own: pyACL has no way to make a model.
"""

from __future__ import annotations

from .files import from_bytes
from .model import MAGIC, Model, ModelError, Tensor
from .zoo import ZOO, zoo

__all__ = ["Model", "Tensor", "ModelError", "zoo", "ZOO", "from_bytes", "MAGIC"]
