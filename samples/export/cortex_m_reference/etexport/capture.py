"""Traces a module to ATen ops with make_fx and records, per graph node, the
module stack and the user source lines that produced it.

torch 1.13's make_fx records neither, so we note them as nodes are created:
forward hooks keep the stack of modules being called, and the Python stack at
node creation gives the source lines (frames inside torch itself are dropped,
as upstream's stack traces show the model's code).
"""
import contextlib
import os
import traceback

import torch
import torch.fx
from torch.fx.experimental.proxy_tensor import make_fx
from torch.nn.utils import stateless

_TORCH_DIR = os.path.dirname(torch.__file__) + os.sep
_THIS_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep
_REPO_DIR = os.path.dirname(os.path.dirname(os.path.dirname(_THIS_DIR.rstrip(os.sep)))) + os.sep


def _shown_path(frame):
    # Files of this repository are named relative to its root, so artifacts
    # are the same from any checkout; others keep their absolute path.
    if frame.filename.startswith(_REPO_DIR):
        frame.filename = frame.filename[len(_REPO_DIR):]
    return frame


def _user_frames():
    """Frames of model code: from the outermost forward() inward, without
    torch's own frames (as upstream's stack traces show)."""
    frames = traceback.extract_stack()[:-2]
    frames = [f for f in frames
              if not f.filename.startswith(_TORCH_DIR) and not f.filename.startswith(_THIS_DIR)
              and "<" not in f.filename]
    for i, frame in enumerate(frames):
        if frame.name == "forward":
            frames = frames[i:]
            break
    return [_shown_path(f) for f in frames]


def _module_key(path):
    return "L__self__" if not path else "L__self___" + path.replace(".", "_")


class _ModuleStack:
    """Modules currently inside forward(), outermost first, as
    (key, qualified path, type name) like torch.export's nn_module_stack."""

    def __init__(self, model):
        self.stack = []
        self.handles = []
        for path, module in model.named_modules():
            type_name = type(module).__module__ + "." + type(module).__qualname__
            entry = (_module_key(path), path, type_name)
            self.handles.append(module.register_forward_pre_hook(
                lambda _m, _i, e=entry: self._enter(e)))
            self.handles.append(module.register_forward_hook(
                lambda _m, _i, _o: self._leave()))

    # Hooks must return None, or torch replaces the module's input/output.
    def _enter(self, entry):
        self.stack.append(entry)

    def _leave(self):
        self.stack.pop()

    def remove(self):
        for handle in self.handles:
            handle.remove()


@contextlib.contextmanager
def _recording_node_metadata(module_stack):
    original = torch.fx.Graph.create_node

    def create_node(graph, op, target, *args, **kwargs):
        node = original(graph, op, target, *args, **kwargs)
        if op == "call_function":
            node.meta["nn_module_stack"] = list(module_stack.stack)
            node.meta["stack_trace"] = "".join(traceback.format_list(_user_frames()))
        return node

    torch.fx.Graph.create_node = create_node
    try:
        yield
    finally:
        torch.fx.Graph.create_node = original


class Captured:
    """The traced graph, its parameter/buffer placeholders and user inputs."""

    def __init__(self, graph_module, constant_names, constants, input_count):
        self.graph_module = graph_module
        self.constant_names = constant_names  # placeholder order, then user inputs
        self.constants = constants
        self.input_count = input_count


def _disable_inplace(model):
    # In-place activations would trace to relu_ etc. on a tensor another node
    # may still read; out-of-place modules trace to plain functional ops.
    for module in model.modules():
        if hasattr(module, "inplace"):
            module.inplace = False


def capture(model, example_inputs):
    model.eval()
    _disable_inplace(model)
    state = dict(model.named_parameters())
    state.update(model.named_buffers())
    names = list(state.keys())
    tensors = [state[n].detach() for n in names]

    def flat_forward(*flat):
        params = dict(zip(names, flat[:len(names)]))
        return stateless.functional_call(model, params, tuple(flat[len(names):]))

    module_stack = _ModuleStack(model)
    try:
        with torch.no_grad(), _recording_node_metadata(module_stack):
            graph_module = make_fx(flat_forward)(*tensors, *example_inputs)
    finally:
        module_stack.remove()
    return Captured(graph_module, names, tensors, len(example_inputs))
