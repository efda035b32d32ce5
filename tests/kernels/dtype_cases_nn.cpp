// Dtype cases of the NN ops added with upstream's full portable op list:
// padding, resampling, grid sampling, glu, dropout in eval, batch norm in
// training, distances (case_list.h).

#include "case_list.h"

namespace etkit::test {
namespace {

void padding_cases(CaseList& l) {
  l.add("aten::reflection_pad1d.out", [](OpRunner& o, const Tensors& t, auto) { o.tensor(t[0]).ints({2, 3}); },
        [](const Tensors& t, auto) { return Tensors{at::reflection_pad1d(t[0], {2, 3})}; }, {l.r({2, 3, 5})});
  l.add("aten::reflection_pad2d.out", [](OpRunner& o, const Tensors& t, auto) { o.tensor(t[0]).ints({1, 2, 2, 0}); },
        [](const Tensors& t, auto) { return Tensors{at::reflection_pad2d(t[0], {1, 2, 2, 0})}; }, {l.r({2, 4, 3})});
  l.add("aten::reflection_pad3d.out", [](OpRunner& o, const Tensors& t, auto) { o.tensor(t[0]).ints({1, 1, 0, 2, 1, 0}); },
        [](const Tensors& t, auto) { return Tensors{at::reflection_pad3d(t[0], {1, 1, 0, 2, 1, 0})}; },
        {l.r({1, 2, 3, 3, 4})});
  l.add("aten::replication_pad1d.out", [](OpRunner& o, const Tensors& t, auto) { o.tensor(t[0]).ints({3, 1}); },
        [](const Tensors& t, auto) { return Tensors{at::replication_pad1d(t[0], {3, 1})}; }, {l.r({2, 3, 5})});
  l.add("aten::replication_pad2d.out", [](OpRunner& o, const Tensors& t, auto) { o.tensor(t[0]).ints({0, 2, 3, 1}); },
        [](const Tensors& t, auto) { return Tensors{at::replication_pad2d(t[0], {0, 2, 3, 1})}; }, {l.r({1, 2, 4, 3})});
  l.add("aten::replication_pad3d.out", [](OpRunner& o, const Tensors& t, auto) { o.tensor(t[0]).ints({1, 0, 2, 1, 0, 1}); },
        [](const Tensors& t, auto) { return Tensors{at::replication_pad3d(t[0], {1, 0, 2, 1, 0, 1})}; },
        {l.r({2, 3, 2, 4})});
}

void resampling_cases(CaseList& l) {
  for (bool align : {false, true}) {
    l.add("aten::upsample_bilinear2d.vec_out",
          [align](OpRunner& o, const Tensors& t, auto) { o.tensor(t[0]).ints({7, 10}).boolean(align).none(); },
          [align](const Tensors& t, auto) {
            return Tensors{at::upsample_bilinear2d(t[0], at::IntArrayRef{7, 10}, align, c10::nullopt)};
          },
          {l.r({1, 2, 4, 5})})
        .libtorch_bf16_accumulates_low = true;  // 1.13 rounds its bfloat16 weights and rows
    l.add("aten::_upsample_bilinear2d_aa.out",
          [align](OpRunner& o, const Tensors& t, auto) { o.tensor(t[0]).ints({3, 4}).boolean(align).none().none(); },
          [align](const Tensors& t, auto) { return Tensors{at::_upsample_bilinear2d_aa(t[0], {3, 4}, align)}; },
          {l.r({2, 3, 10, 9})});
  }
  l.add("aten::upsample_bilinear2d.vec_out",
        [](OpRunner& o, const Tensors& t, auto) { o.tensor(t[0]).none().boolean(false).doubles({2.5, 0.5}); },
        [](const Tensors& t, auto) {
          return Tensors{at::upsample_bilinear2d(t[0], c10::nullopt, false, at::ArrayRef<double>{2.5, 0.5})};
        },
        {l.r({2, 1, 3, 8})})
      .libtorch_bf16_accumulates_low = true;
  l.add("aten::_upsample_bilinear2d_aa.out",
        [](OpRunner& o, const Tensors& t, auto) { o.tensor(t[0]).ints({8, 3}).boolean(false).none().none(); },
        [](const Tensors& t, auto) { return Tensors{at::_upsample_bilinear2d_aa(t[0], {8, 3}, false)}; },
        {l.r({1, 2, 5, 11})});
  // Every interpolation and padding mode; grid points reach past the edges.
  for (int64_t mode : {0, 1, 2}) {
    for (int64_t padding : {0, 1, 2}) {
      for (bool align : {false, true}) {
        l.add("aten::grid_sampler_2d.out",
              [=](OpRunner& o, const Tensors& t, auto) {
                o.tensor(t[0]).tensor(t[1]).integer(mode).integer(padding).boolean(align);
              },
              [=](const Tensors& t, auto) { return Tensors{at::grid_sampler_2d(t[0], t[1], mode, padding, align)}; },
              {l.r({2, 3, 5, 6}), l.unit({2, 4, 3, 2}) * 2.4 - 1.2});
      }
    }
  }
}

void activation_norm_and_distance_cases(CaseList& l) {
  l.add("aten::glu.out", [](OpRunner& o, const Tensors& t, auto) { o.tensor(t[0]).integer(1); },
        [](const Tensors& t, auto) { return Tensors{at::glu(t[0], 1)}; }, {l.r({3, 8, 2})});
  l.add("aten::native_dropout.out", [](OpRunner& o, const Tensors& t, auto) { o.tensor(t[0]).real(0.3).boolean(false); },
        [](const Tensors& t, auto) {
          auto [out, mask] = at::native_dropout(t[0], 0.3, false);
          return Tensors{out, mask};
        },
        {l.r({4, 5})});
  // Batch norm in training: the running statistics are updated in place.
  l.add("aten::_native_batch_norm_legit.out",
        [](OpRunner& o, const Tensors& t, auto) {
          o.tensor(t[0]).tensor(t[1]).tensor(t[2]).inout(t[3]).inout(t[4]).boolean(true).real(0.1).real(1e-5);
        },
        [](const Tensors& t, auto) {
          at::Tensor mean = t[3].clone(), var = t[4].clone();
          auto [y, save_mean, save_invstd] = at::native_batch_norm(t[0], t[1], t[2], mean, var, true, 0.1, 1e-5);
          return Tensors{mean, var, y, save_mean, save_invstd};
        },
        {l.r({3, 4, 5, 2}), l.r({4}), l.r({4}), l.r({4}), l.r({4}).abs() + 0.5})
      .outs = [](OpRunner& o, const Tensors& e, auto) {
        for (size_t k = 2; k < e.size(); ++k) o.out(e[k].scalar_type(), e[k].sizes());
        o.outs_as_list();
      };
  l.add("aten::_native_batch_norm_legit.out",
        [](OpRunner& o, const Tensors& t, auto) {
          o.tensor(t[0]).tensor(t[1]).tensor(t[2]).inout(t[3]).inout(t[4]).boolean(false).real(0.1).real(1e-5);
        },
        [](const Tensors& t, auto) {
          auto [y, m, v] = at::native_batch_norm(t[0], t[1], t[2], t[3], t[4], false, 0.1, 1e-5);
          return Tensors{t[3], t[4], y};
        },
        {l.r({3, 4, 5}), l.r({4}), l.r({4}), l.r({4}), l.r({4}).abs() + 0.5})
      .outs = [](OpRunner& o, const Tensors& e, at::ScalarType dtype) {
        o.out(e[2].scalar_type(), e[2].sizes()).out(dtype, {0}).out(dtype, {0}).outs_as_list();
      };
  l.add("aten::_native_batch_norm_legit.no_stats_out",
        [](OpRunner& o, const Tensors& t, auto) { o.tensor(t[0]).tensor(t[1]).none().boolean(true).real(0.1).real(1e-3); },
        [](const Tensors& t, auto) {
          auto [y, save_mean, save_invstd] = at::native_batch_norm(t[0], t[1], {}, {}, {}, true, 0.1, 1e-3);
          return Tensors{y, save_mean, save_invstd};
        },
        {l.r({4, 3, 6}), l.r({3})})
      .outs = [](OpRunner& o, const Tensors& e, auto) {
        for (const at::Tensor& t : e) o.out(t.scalar_type(), t.sizes());
        o.outs_as_list();
      };
  for (double p : {0.0, 1.0, 2.0, 3.0, double(INFINITY)}) {
    l.add("aten::_cdist_forward.out", [p](OpRunner& o, const Tensors& t, auto) { o.tensor(t[0]).tensor(t[1]).real(p).none(); },
          [p](const Tensors& t, auto) { return Tensors{at::_cdist_forward(t[0], t[1], p, c10::nullopt)}; },
          {l.r({2, 4, 3}), l.r({1, 5, 3})});
  }
  for (double p : {1.0, 2.0, 0.5}) {
    l.add("aten::_pdist_forward.out", [p](OpRunner& o, const Tensors& t, auto) { o.tensor(t[0]).real(p); },
          [p](const Tensors& t, auto) { return Tensors{at::_pdist_forward(t[0], p)}; }, {l.r({5, 4})});
  }
}

}  // namespace

void nn_op_cases(CaseList& l) {
  padding_cases(l);
  resampling_cases(l);
  activation_norm_and_distance_cases(l);
}

}  // namespace etkit::test
