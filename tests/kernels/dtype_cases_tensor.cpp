// Dtype cases of the view-like copies, index and scatter ops and creation
// ops added with upstream's full portable op list (case_list.h).

#include "case_list.h"

namespace etkit::test {
namespace {

// Passes a list of outs shaped like the expected tensors, as split-like
// ops take them (Tensor(a!)[] out, then the returned list).
void list_outs(OpRunner& o, const Tensors& e, at::ScalarType) {
  for (const at::Tensor& t : e) o.list_out(t.scalar_type(), t.sizes());
  o.outs_as_list().returned();
}

Tensors contiguous(const std::vector<at::Tensor>& parts) {
  Tensors out;
  for (const at::Tensor& p : parts) out.push_back(p.contiguous());
  return out;
}

// In-place ops: self is updated and returned.
void inplace_out(OpRunner& o, const Tensors&, at::ScalarType) { o.returns_arg(0); }

}  // namespace

void view_and_copy_cases(CaseList& l) {
  auto x = [&] { return l.r({2, 3, 4}); };
  for (const char* op : {"aten::alias_copy.out", "aten::detach_copy.out", "aten::lift_fresh_copy.out"}) {
    l.add(op, [](OpRunner& o, const Tensors& t, auto) { o.tensor(t[0]); },
          [](const Tensors& t, auto) { return Tensors{t[0].clone()}; }, {x()});
  }
  l.add("aten::t_copy.out", [](OpRunner& o, const Tensors& t, auto) { o.tensor(t[0]); },
        [](const Tensors& t, auto) { return Tensors{t[0].t().contiguous()}; }, {l.r({3, 5})});
  l.add("aten::narrow_copy.out", [](OpRunner& o, const Tensors& t, auto) { o.tensor(t[0]).integer(2).integer(-3).integer(2); },
        [](const Tensors& t, auto) { return Tensors{t[0].narrow(2, -3, 2).contiguous()}; }, {x()});
  l.add("aten::diagonal_copy.out", [](OpRunner& o, const Tensors& t, auto) { o.tensor(t[0]).integer(1).integer(0).integer(2); },
        [](const Tensors& t, auto) { return Tensors{at::diagonal(t[0], 1, 0, 2).contiguous()}; }, {l.r({4, 3, 5})});
  l.add("aten::diagonal_copy.out", [](OpRunner& o, const Tensors& t, auto) { o.tensor(t[0]).integer(-2).integer(-1).integer(0); },
        [](const Tensors& t, auto) { return Tensors{at::diagonal(t[0], -2, -1, 0).contiguous()}; }, {l.r({4, 3, 5})});
  l.add("aten::as_strided_copy.out", [](OpRunner& o, const Tensors& t, auto) { o.tensor(t[0]).ints({3, 2}).ints({2, 5}).integer(1); },
        [](const Tensors& t, auto) { return Tensors{t[0].as_strided({3, 2}, {2, 5}, 1).contiguous()}; }, {l.r({4, 3})});
  l.add("aten::unfold_copy.out", [](OpRunner& o, const Tensors& t, auto) { o.tensor(t[0]).integer(1).integer(3).integer(2); },
        [](const Tensors& t, auto) { return Tensors{t[0].unfold(1, 3, 2).contiguous()}; }, {l.r({2, 8, 3})});
  l.add("aten::split_copy.Tensor_out", [](OpRunner& o, const Tensors& t, auto) { o.tensor(t[0]).integer(2).integer(1); },
        [](const Tensors& t, auto) { return contiguous(at::split(t[0], 2, 1)); }, {l.r({3, 5})})
      .outs = list_outs;
  l.add("aten::unbind_copy.int_out", [](OpRunner& o, const Tensors& t, auto) { o.tensor(t[0]).integer(1); },
        [](const Tensors& t, auto) { return contiguous(at::unbind(t[0], 1)); }, {x()})
      .outs = list_outs;
  l.add("aten::stack.out", [](OpRunner& o, const Tensors& t, auto) { o.tensors({t[0], t[1], t[2]}).integer(1); },
        [](const Tensors& t, auto) { return Tensors{at::stack({t[0], t[1], t[2]}, 1)}; }, {x(), x(), x()});
  l.add("aten::stack.out", [](OpRunner& o, const Tensors& t, auto) { o.tensors({t[0], t[1]}).integer(-1); },
        [](const Tensors& t, auto) { return Tensors{at::stack({t[0], t[1]}, -1)}; }, {x(), x()});
  l.add("aten::flip.out", [](OpRunner& o, const Tensors& t, auto) { o.tensor(t[0]).ints({0, -1}); },
        [](const Tensors& t, auto) { return Tensors{at::flip(t[0], {0, -1})}; }, {x()});
  l.add("aten::roll.out", [](OpRunner& o, const Tensors& t, auto) { o.tensor(t[0]).ints({1, -5}).ints({0, 2}); },
        [](const Tensors& t, auto) { return Tensors{at::roll(t[0], {1, -5}, {0, 2})}; }, {x()});
  l.add("aten::roll.out", [](OpRunner& o, const Tensors& t, auto) { o.tensor(t[0]).ints({7}).ints({}); },
        [](const Tensors& t, auto) { return Tensors{at::roll(t[0], {7})}; }, {x()});
  l.add("aten::tril.out", [](OpRunner& o, const Tensors& t, auto) { o.tensor(t[0]).integer(1); },
        [](const Tensors& t, auto) { return Tensors{at::tril(t[0], 1)}; }, {l.r({2, 4, 5})});
  l.add("aten::tril.out", [](OpRunner& o, const Tensors& t, auto) { o.tensor(t[0]).integer(-1); },
        [](const Tensors& t, auto) { return Tensors{at::tril(t[0], -1)}; }, {l.r({5, 3})});
  l.add("aten::pixel_shuffle.out", [](OpRunner& o, const Tensors& t, auto) { o.tensor(t[0]).integer(2); },
        [](const Tensors& t, auto) { return Tensors{at::pixel_shuffle(t[0], 2)}; }, {l.r({2, 8, 3, 2})});
  l.add("aten::pixel_unshuffle.out", [](OpRunner& o, const Tensors& t, auto) { o.tensor(t[0]).integer(3); },
        [](const Tensors& t, auto) { return Tensors{at::pixel_unshuffle(t[0], 3)}; }, {l.r({1, 2, 6, 9})});
  l.add("aten::repeat_interleave.Tensor_out", [](OpRunner& o, const Tensors& t, auto) { o.tensor(t[0]).none(); },
        [](const Tensors& t, auto) { return Tensors{at::repeat_interleave(t[0])}; },
        {at::tensor({2, 0, 3, 1}, at::kLong)});
  l.add("aten::_conj_physical.out", [](OpRunner& o, const Tensors& t, auto) { o.tensor(t[0]); },
        [](const Tensors& t, auto) { return Tensors{at::_conj_physical(t[0])}; }, {x()});
}

void index_and_scatter_cases(CaseList& l) {
  const at::Tensor index = at::tensor({2, 0, 4, 1, 3, 3, 0, 1}, at::kLong).reshape({4, 2});
  // A permutation per row: scatter without colliding writes.
  const at::Tensor unique = at::tensor({4, 1, 0, 2, 3, 0, 1, 4}, at::kLong).reshape({4, 2});
  l.add("aten::gather.out", [](OpRunner& o, const Tensors& t, auto) { o.tensor(t[0]).integer(1).tensor(t[1]).boolean(false); },
        [](const Tensors& t, auto) { return Tensors{at::gather(t[0], 1, t[1])}; }, {l.r({4, 5}), index});
  l.add("aten::gather.out", [](OpRunner& o, const Tensors& t, auto) { o.tensor(t[0]).integer(0).tensor(t[1]).boolean(false); },
        [](const Tensors& t, auto) { return Tensors{at::gather(t[0], 0, t[1])}; },
        {l.r({5, 3}), at::tensor({4, 0, 1, 2, 2, 3}, at::kLong).reshape({2, 3})});
  l.add("aten::scatter.src_out", [](OpRunner& o, const Tensors& t, auto) { o.tensor(t[0]).integer(1).tensor(t[1]).tensor(t[2]); },
        [](const Tensors& t, auto) { return Tensors{at::scatter(t[0], 1, t[1], t[2])}; },
        {l.r({4, 5}), unique, l.r({4, 3})});
  l.add("aten::scatter.value_out", [](OpRunner& o, const Tensors& t, auto) { o.tensor(t[0]).integer(1).tensor(t[1]).integer(3); },
        [](const Tensors& t, auto) { return Tensors{at::scatter(t[0], 1, t[1], 3)}; }, {l.r({4, 5}), index});
  l.add("aten::scatter_add.out", [](OpRunner& o, const Tensors& t, auto) { o.tensor(t[0]).integer(1).tensor(t[1]).tensor(t[2]); },
        [](const Tensors& t, auto) { return Tensors{at::scatter_add(t[0], 1, t[1], t[2])}; },
        {l.r({4, 5}), index, l.r({4, 2})});
  l.add("aten::select_scatter.out", [](OpRunner& o, const Tensors& t, auto) { o.tensor(t[0]).tensor(t[1]).integer(1).integer(-1); },
        [](const Tensors& t, auto) { return Tensors{at::select_scatter(t[0], t[1], 1, -1)}; }, {l.r({3, 4, 2}), l.r({3, 2})});
  l.add("aten::slice_scatter.out",
        [](OpRunner& o, const Tensors& t, auto) { o.tensor(t[0]).tensor(t[1]).integer(1).integer(1).integer(6).integer(2); },
        [](const Tensors& t, auto) { return Tensors{at::slice_scatter(t[0], t[1], 1, 1, 6, 2)}; }, {l.r({3, 7}), l.r({3, 3})});
  const at::Tensor rows = at::tensor({0, 2, 3}, at::kLong), cols = at::tensor({1, 1, 4}, at::kLong);
  l.add("aten::index_put.out",
        [](OpRunner& o, const Tensors& t, auto) { o.tensor(t[0]).tensors({t[1], t[2]}).tensor(t[3]).boolean(false); },
        [](const Tensors& t, auto) { return Tensors{at::index_put(t[0], {t[1], t[2]}, t[3], false)}; },
        {l.r({4, 5}), rows, cols, l.r({3})});
  // Accumulating with a repeated position, and values broadcast over the last dim.
  l.add("aten::index_put.out",
        [](OpRunner& o, const Tensors& t, auto) { o.tensor(t[0]).tensors({t[1]}).tensor(t[2]).boolean(true); },
        [](const Tensors& t, auto) { return Tensors{at::index_put(t[0], {t[1]}, t[2], true)}; },
        {l.r({4, 5}), at::tensor({1, 3, 1}, at::kLong), l.r({1, 5})});
  // Boolean masks: x[mask] and x[mask] = v.
  l.add("aten::index.Tensor_out", [](OpRunner& o, const Tensors& t, auto) { o.tensor(t[0]).tensors({t[1]}); },
        [](const Tensors& t, auto) { return Tensors{at::index(t[0], {t[1]})}; }, {l.r({4, 5, 3}), l.r({4, 5}).gt(0.2)})
      .outs = [](OpRunner& o, const Tensors& e, auto) { o.out(e[0].scalar_type(), {20, 3}).returned(); };
  l.add("aten::index_put.out",
        [](OpRunner& o, const Tensors& t, auto) { o.tensor(t[0]).tensors({t[1]}).tensor(t[2]).boolean(false); },
        [](const Tensors& t, auto) { return Tensors{at::index_put(t[0], {t[1]}, t[2], false)}; },
        {l.r({4, 5}), l.r({4, 5}).gt(0), l.r({1})});
  l.add("aten::index_put_",
        [](OpRunner& o, const Tensors& t, auto) { o.inout(t[0]).tensors({t[1], t[2]}).tensor(t[3]).boolean(false); },
        [](const Tensors& t, auto) { return Tensors{t[0].clone().index_put_({t[1], t[2]}, t[3], false)}; },
        {l.r({4, 5}), rows, cols, l.r({3})})
      .outs = inplace_out;
  l.add("aten::masked_scatter.out", [](OpRunner& o, const Tensors& t, auto) { o.tensor(t[0]).tensor(t[1]).tensor(t[2]); },
        [](const Tensors& t, auto) { return Tensors{at::masked_scatter(t[0], t[1], t[2])}; },
        {l.r({3, 4}), l.r({1, 4}).gt(0), l.r({3, 5})});
  // A mask larger than self: self is expanded to the mask, as ATen does.
  l.add("aten::masked_scatter.out", [](OpRunner& o, const Tensors& t, auto) { o.tensor(t[0]).tensor(t[1]).tensor(t[2]); },
        [](const Tensors& t, auto) { return Tensors{at::masked_scatter(t[0], t[1], t[2])}; },
        {l.r({5}), l.r({4, 5}).gt(0), l.r({4, 6})});
  // Data-dependent sizes: the outs have room for more than the result.
  l.add("aten::masked_select.out", [](OpRunner& o, const Tensors& t, auto) { o.tensor(t[0]).tensor(t[1]); },
        [](const Tensors& t, auto) { return Tensors{at::masked_select(t[0], t[1])}; }, {l.r({3, 4}), l.r({3, 1}).gt(0)})
      .outs = [](OpRunner& o, const Tensors& e, auto) { o.out(e[0].scalar_type(), {12}).returned(); };
  l.add("aten::nonzero.out", [](OpRunner& o, const Tensors& t, auto) { o.tensor(t[0]); },
        [](const Tensors& t, auto) { return Tensors{at::nonzero(t[0])}; }, {l.r({3, 4}).gt(0.3) * l.r({3, 4})})
      .outs = [](OpRunner& o, const Tensors&, auto) { o.out(at::kLong, {12, 2}).returned(); };
}

void creation_op_cases(CaseList& l) {
  const auto options = [](at::ScalarType dtype) { return at::TensorOptions().dtype(dtype); };
  l.add("aten::ones.out", [](OpRunner& o, const Tensors&, auto) { o.ints({2, 3}); },
        [options](const Tensors&, at::ScalarType dtype) { return Tensors{at::ones({2, 3}, options(dtype))}; }, {});
  l.add("aten::zeros.out", [](OpRunner& o, const Tensors&, auto) { o.ints({4}); },
        [options](const Tensors&, at::ScalarType dtype) { return Tensors{at::zeros({4}, options(dtype))}; }, {});
  l.add("aten::scalar_tensor.out", [](OpRunner& o, const Tensors&, auto) { o.integer(5); },
        [options](const Tensors&, at::ScalarType dtype) { return Tensors{at::scalar_tensor(5, options(dtype))}; }, {});
  l.add("aten::fill.Scalar_out", [](OpRunner& o, const Tensors& t, auto) { o.tensor(t[0]).integer(-2); },
        [](const Tensors& t, auto) { return Tensors{at::full_like(t[0], -2)}; }, {l.r({3, 2})});
  l.add("aten::fill.Tensor_out", [](OpRunner& o, const Tensors& t, auto) { o.tensor(t[0]).tensor(t[1]); },
        [](const Tensors& t, auto) { return Tensors{t[0].clone().fill_(t[1])}; }, {l.r({3, 2}), l.r({}) * 4});
  l.add("aten::copy.out", [](OpRunner& o, const Tensors& t, auto) { o.tensor(t[0]).tensor(t[1]).boolean(false); },
        [](const Tensors& t, auto) { return Tensors{t[0].clone().copy_(t[1])}; }, {l.r({3, 4}), l.r({1, 4})});
  l.add("aten::copy_", [](OpRunner& o, const Tensors& t, auto) { o.inout(t[0]).tensor(t[1]).boolean(false); },
        [](const Tensors& t, auto) { return Tensors{t[0].clone().copy_(t[1])}; }, {l.r({3, 4}), l.r({3, 1})})
      .outs = inplace_out;
  for (const char* op : {"et_copy::_h2d_copy.out", "et_copy::_d2h_copy.out"}) {
    l.add(op, [](OpRunner& o, const Tensors& t, auto) { o.tensor(t[0]); },
          [](const Tensors& t, auto) { return Tensors{t[0].clone()}; }, {l.r({2, 5})});
  }
}

}  // namespace etkit::test
