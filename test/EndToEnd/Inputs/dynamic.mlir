// Dynamic shapes as a frontend exports them with an open batch size (JAX's
// shape polymorphism, torch.export's dynamic dims): the sizes reach the
// body by tensor.dim. accel-replay takes them from the .npy inputs (or
// --bind): out = (x @ w + b) - rowmax(x @ w + b) (reference.py "dynamic").
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d1)>
#map2 = affine_map<(d0, d1) -> (d0)>
module @jit_dynamic {
  func.func public @main(%arg0: tensor<?x64xf32>, %arg1: tensor<64x?xf32>, %arg2: tensor<?xf32>) -> tensor<?x?xf32> {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %cst = arith.constant 0.000000e+00 : f32
    %ninf = arith.constant 0xFF800000 : f32
    %dim = tensor.dim %arg0, %c0 : tensor<?x64xf32>
    %dim_0 = tensor.dim %arg1, %c1 : tensor<64x?xf32>
    %0 = tensor.empty(%dim, %dim_0) : tensor<?x?xf32>
    %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<?x?xf32>) -> tensor<?x?xf32>
    %2 = linalg.matmul ins(%arg0, %arg1 : tensor<?x64xf32>, tensor<64x?xf32>) outs(%1 : tensor<?x?xf32>) -> tensor<?x?xf32>
    %3 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%2, %arg2 : tensor<?x?xf32>, tensor<?xf32>) outs(%0 : tensor<?x?xf32>) {
    ^bb0(%in: f32, %in_1: f32, %out: f32):
      %8 = arith.addf %in, %in_1 : f32
      linalg.yield %8 : f32
    } -> tensor<?x?xf32>
    %4 = tensor.empty(%dim) : tensor<?xf32>
    %5 = linalg.fill ins(%ninf : f32) outs(%4 : tensor<?xf32>) -> tensor<?xf32>
    %6 = linalg.generic {indexing_maps = [#map, #map2], iterator_types = ["parallel", "reduction"]} ins(%3 : tensor<?x?xf32>) outs(%5 : tensor<?xf32>) {
    ^bb0(%in: f32, %out: f32):
      %8 = arith.maximumf %in, %out : f32
      linalg.yield %8 : f32
    } -> tensor<?xf32>
    %7 = linalg.generic {indexing_maps = [#map, #map2, #map], iterator_types = ["parallel", "parallel"]} ins(%3, %6 : tensor<?x?xf32>, tensor<?xf32>) outs(%0 : tensor<?x?xf32>) {
    ^bb0(%in: f32, %in_1: f32, %out: f32):
      %8 = arith.subf %in, %in_1 : f32
      linalg.yield %8 : f32
    } -> tensor<?x?xf32>
    return %7 : tensor<?x?xf32>
  }
}
