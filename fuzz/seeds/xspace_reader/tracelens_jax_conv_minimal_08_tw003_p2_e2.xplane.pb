
#/host:metadata*	Hlo Proto
ö	/device:GPU:0PStream #17(Kernel)ÕÍ7"ÈýöÍ€¤Ù""	8
"È·©£€Ð÷"_"	8
PStream #15(Kernel)ÕÍ7"ˆ½¯×€É£""	8
"È˜›¼€²"A"	8
*
clock_rate*device_vendor*loop_transpose_fusion*HD@ grid:1280,1,1 block:256,1,1 private_mem:0 group_mem:0 occ_pct:0*name*
core_count*KGC grid:6240,1,1 block:256,1,1 private_mem:0 group_mem:2112 occ_pct:0*	x*LHD grid:219,40,1 block:256,1,1 private_mem:0 group_mem:49280 occ_pct:0*input_transpose_fusion*memory_size*HD@ grid:1024,1,1 block:256,1,1 private_mem:0 group_mem:0 occ_pct:0*		kernel_details*
program_id*	tf_op*
hlo_op*memory_bandwidth*compute_cap_major*
kernel*LHD grid:69840,1,1 block:256,1,1 private_mem:0 group_mem:8192 occ_pct:0* input_transpose_fusion.1*
XlaModule:*1-)jit(forward_3d_conv)/conv_general_dilated*
hlo_module*cudnn-conv.1*F
B
> grid:16,1,1 block:512,1,1 private_mem:0 group_mem:0 occ_pct:0*compute_cap_minor*jit_forward_3d_conv*correlation_id2*AMD2  –€2 °2	€€ ›¾M2	€€€øÿ2 	2 ""__amd_rocclr_copyBuffer.kd"tw003