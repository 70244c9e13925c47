// A mixed-precision MLP in linalg on tensors, as a bf16 model hands it
// over: bf16 weights and activations, f32 accumulation in the matmuls,
// the bias and ReLU in f32 and the hidden layer rounded back to bf16; the
// output is also scaled in bf16, every op rounding (linalg's semantics):
//   h   = bf16(relu(x w1 + b1))          x: 64x256, w1: 256x512, b1: 512
//   y   = h w2                           w2: 512x128 (f32 result)
//   out = bf16(bf16(t * 0.1) + t)        t = bf16(y); 0.1 is a bf16
func.func @mlp_bf16(%x: tensor<64x256xbf16>, %w1: tensor<256x512xbf16>,
                    %b1: tensor<512xbf16>, %w2: tensor<512x128xbf16>)
    -> (tensor<64x128xbf16>, tensor<64x128xf32>) {
  %zero = arith.constant 0.0 : f32
  %tenth = arith.constant 0.1 : bf16
  %e1 = tensor.empty() : tensor<64x512xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<64x512xf32>) -> tensor<64x512xf32>
  %acc = linalg.matmul ins(%x, %w1 : tensor<64x256xbf16>, tensor<256x512xbf16>) outs(%f1 : tensor<64x512xf32>) -> tensor<64x512xf32>
  %eh = tensor.empty() : tensor<64x512xbf16>
  %h = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%acc, %b1 : tensor<64x512xf32>, tensor<512xbf16>) outs(%eh : tensor<64x512xbf16>) {
  ^bb0(%a: f32, %b: bf16, %o: bf16):
    %bf = arith.extf %b : bf16 to f32
    %s = arith.addf %a, %bf : f32
    %m = arith.maximumf %s, %zero : f32
    %t = arith.truncf %m : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<64x512xbf16>
  %e2 = tensor.empty() : tensor<64x128xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<64x128xf32>) -> tensor<64x128xf32>
  %y = linalg.matmul ins(%h, %w2 : tensor<64x512xbf16>, tensor<512x128xbf16>) outs(%f2 : tensor<64x128xf32>) -> tensor<64x128xf32>
  %eo = tensor.empty() : tensor<64x128xbf16>
  %out = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                         iterator_types = ["parallel", "parallel"]}
      ins(%y : tensor<64x128xf32>) outs(%eo : tensor<64x128xbf16>) {
  ^bb0(%a: f32, %o: bf16):
    %t = arith.truncf %a : f32 to bf16
    %s = arith.mulf %t, %tenth : bf16
    %e = arith.addf %s, %t : bf16
    linalg.yield %e : bf16
  } -> tensor<64x128xbf16>
  return %out, %y : tensor<64x128xbf16>, tensor<64x128xf32>
}
