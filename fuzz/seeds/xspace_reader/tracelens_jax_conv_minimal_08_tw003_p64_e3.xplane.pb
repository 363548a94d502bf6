
#/host:metadata*	Hlo Proto
Ñ/device:GPU:0mStream #17(Kernel)ÕÍ7"ÈıöÍ€¤Ù""	8
"È·©£€Ğ÷"_"	8
"è»ÿ‡ã€ıè"è"	8
mStream #15(Kernel)ÕÍ7"ˆ½¯×€É£""	8
"È˜›¼€²"A"	8
"¨âº÷âÀ€Ó"å"	8
‹Stream #16(Kernel)ÕÍ7"ˆ­ñ¤À¡"6"	8
"ˆ×­¶€¨´"<"	8
"9à£É¥À…"ó"	8"8"8"8"8" oStream #18(Kernel)ÕÍ7"ˆÉ£­€ïÀ"7"	8
"èÚÏÜâ€ç™"Ü"	8
"¨£‹áã€¢³"“"	8
*
clock_rate*device_vendor*loop_transpose_fusion*HD@ grid:1280,1,1 block:256,1,1 private_mem:0 group_mem:0 occ_pct:0*name*
core_count*KGC grid:6240,1,1 block:256,1,1 private_mem:0 group_mem:2112 occ_pct:0*	x*LHD grid:219,40,1 block:256,1,1 private_mem:0 group_mem:49280 occ_pct:0*input_transpose_fusion*memory_size*HD@ grid:1024,1,1 block:256,1,1 private_mem:0 group_mem:0 occ_pct:0*		kernel_details*
program_id*	tf_op*
hlo_op*memory_bandwidth*compute_cap_major*
kernel*LHD grid:69840,1,1 block:256,1,1 private_mem:0 group_mem:8192 occ_pct:0* input_transpose_fusion.1*
XlaModule:*1-)jit(forward_3d_conv)/conv_general_dilated*
hlo_module*cudnn-conv.1*F
B
> grid:16,1,1 block:512,1,1 private_mem:0 group_mem:0 occ_pct:0*compute_cap_minor*jit_forward_3d_conv*correlation_id2*AMD2  –€2 °2	€€ ›¾M2	€€€øÿ2 	2 " loop_transpose_fusion.kd""__amd_rocclr_copyBuffer.kd

/device:GPU:1ÈStream #19(Kernel)ÕÍ7"8¸ÌØ’b€ü¤"«"	8"8"8"8"8" "8¸ «˜b€ç¨"¬"	8"8"8"8"8" "8¸Ì÷Ûb€”‹"¯"	8"8"8"8"8" *jit_forward_3d_conv*compute_cap_minor* input_transpose_fusion.1*
hlo_op*HD@ grid:1280,1,1 block:256,1,1 private_mem:0 group_mem:0 occ_pct:0*	x*cudnn-conv.1*L
H
D grid:69840,1,1 block:256,1,1 private_mem:0 group_mem:8192 occ_pct:0*device_vendor*
core_count*
hlo_module*memory_size*
XlaModule:*name*loop_transpose_fusion*LHD grid:219,40,1 block:256,1,1 private_mem:0 group_mem:49280 occ_pct:0*memory_bandwidth*compute_cap_major*
clock_rate*	tf_op*HD@ grid:1024,1,1 block:256,1,1 private_mem:0 group_mem:0 occ_pct:0*		kernel_details*correlation_id*
kernel*
program_id*input_transpose_fusion*1-)jit(forward_3d_conv)/conv_general_dilated*KGC grid:6240,1,1 block:256,1,1 private_mem:0 group_mem:2112 occ_pct:02*AMD2  –€2 °2	€€ ›¾M2	€€€øÿ2 	2 " loop_transpose_fusion.kd"Im3d2Col.kd"#input_transpose_fusion_1.kd

/device:GPU:2ÈStream #22(Kernel)ÕÍ7"8¨ÜĞğs€‹ "½"	8"8"8"8"8" "8è×„õs€Á‹"¾"	8"8"8"8"8" "8¨µÇtÀ®—"Á"	8
"8"8"8"8" *KGC grid:6240,1,1 block:256,1,1 private_mem:0 group_mem:2112 occ_pct:0*
clock_rate*
XlaModule:*memory_bandwidth*
hlo_module*
kernel*HD@ grid:1280,1,1 block:256,1,1 private_mem:0 group_mem:0 occ_pct:0*	tf_op*device_vendor*compute_cap_major*	x*1-)jit(forward_3d_conv)/conv_general_dilated*LHD grid:69840,1,1 block:256,1,1 private_mem:0 group_mem:8192 occ_pct:0*H
D
@ grid:1024,1,1 block:256,1,1 private_mem:0 group_mem:0 occ_pct:0*name*jit_forward_3d_conv*memory_size*correlation_id*
core_count*loop_transpose_fusion*compute_cap_minor*LHD grid:219,40,1 block:256,1,1 private_mem:0 group_mem:49280 occ_pct:0* input_transpose_fusion.1*cudnn-conv.1*input_transpose_fusion*		kernel_details*
program_id*
hlo_op2*AMD2  –€2 °2	€€ ›¾M2	€€€øÿ2 	2 "Im3d2Col.kd" loop_transpose_fusion.kd"#input_transpose_fusion_1.kd
’
/device:GPU:3ËStream #25(Kernel)ÕÍ7"9 œ–‡¢ÀÒ"á"	8"8"8"8"8" "9à§‰‘¢€ÂŞ"â"	8"8"8"8"8" "9àòÚ¢€Ø"å"	8
"8"8"8"8" *device_vendor*LHD grid:219,40,1 block:256,1,1 private_mem:0 group_mem:49280 occ_pct:0*
core_count*KGC grid:6240,1,1 block:256,1,1 private_mem:0 group_mem:2112 occ_pct:0*memory_size*
XlaModule:*
hlo_op*name* input_transpose_fusion.1*compute_cap_minor*compute_cap_major*
hlo_module*
kernel*	tf_op*	x*HD@ grid:1280,1,1 block:256,1,1 private_mem:0 group_mem:0 occ_pct:0*jit_forward_3d_conv*input_transpose_fusion*LHD grid:69840,1,1 block:256,1,1 private_mem:0 group_mem:8192 occ_pct:0*1-)jit(forward_3d_conv)/conv_general_dilated*correlation_id*H
D
@ grid:1024,1,1 block:256,1,1 private_mem:0 group_mem:0 occ_pct:0*memory_bandwidth*
clock_rate*loop_transpose_fusion*cudnn-conv.1*		kernel_details*
program_id2*AMD2  –€2 °2	€€ ›¾M2	€€€øÿ2 	2 "Im3d2Col.kd"#input_transpose_fusion_1.kd" loop_transpose_fusion.kd
’
/device:GPU:4ËStream #28(Kernel)ÕÍ7"9È“¯•°À‡¶"—"	8
"8"8"8"8" "9Èğû›°€èû"˜"	8"8"8"8"8" "9È¹§Ë°À¡"›"	8"8"8"8"8" *compute_cap_minor*
XlaModule:*
clock_rate*	x*HD@ grid:1024,1,1 block:256,1,1 private_mem:0 group_mem:0 occ_pct:0*
kernel*memory_bandwidth*LHD grid:219,40,1 block:256,1,1 private_mem:0 group_mem:49280 occ_pct:0*
core_count*name*1-)jit(forward_3d_conv)/conv_general_dilated*loop_transpose_fusion* input_transpose_fusion.1*H
D
@ grid:1280,1,1 block:256,1,1 private_mem:0 group_mem:0 occ_pct:0*
hlo_module*
program_id*jit_forward_3d_conv*		kernel_details*cudnn-conv.1*compute_cap_major*device_vendor*correlation_id*KGC grid:6240,1,1 block:256,1,1 private_mem:0 group_mem:2112 occ_pct:0*memory_size*
hlo_op*input_transpose_fusion*LHD grid:69840,1,1 block:256,1,1 private_mem:0 group_mem:8192 occ_pct:0*	tf_op2*AMD2  –€2 °2	€€ ›¾M2	€€€øÿ2 	2 "#input_transpose_fusion_1.kd" loop_transpose_fusion.kd"Im3d2Col.kd
’
/device:GPU:5ËStream #31(Kernel)ÕÍ7"9èÍÉÂ«€±½"…"	8"8"8"8"8" "9¨¾ÎÉ«€’¸"†"	8"8"8"8"8" "9è½Çü«€ïÀ"‰"	8
"8"8"8"8" *1-)jit(forward_3d_conv)/conv_general_dilated*		kernel_details*compute_cap_major*loop_transpose_fusion*	tf_op*
kernel*device_vendor*input_transpose_fusion*
core_count*cudnn-conv.1*compute_cap_minor*LHD grid:69840,1,1 block:256,1,1 private_mem:0 group_mem:8192 occ_pct:0*	x*H
D
@ grid:1024,1,1 block:256,1,1 private_mem:0 group_mem:0 occ_pct:0* input_transpose_fusion.1*KGC grid:6240,1,1 block:256,1,1 private_mem:0 group_mem:2112 occ_pct:0*
clock_rate*HD@ grid:1280,1,1 block:256,1,1 private_mem:0 group_mem:0 occ_pct:0*memory_bandwidth*LHD grid:219,40,1 block:256,1,1 private_mem:0 group_mem:49280 occ_pct:0*jit_forward_3d_conv*correlation_id*name*
XlaModule:*memory_size*
hlo_op*
hlo_module*
program_id2*AMD2  –€2 °2	€€ ›¾M2	€€€øÿ2 	2 " loop_transpose_fusion.kd"Im3d2Col.kd"#input_transpose_fusion_1.kd
’
/device:GPU:6Ë"Stream #34(Kernel)ÕÍ7"9Ğ§œè€ÀÜê"Ï"	8
"8"8"8"8" "9„‡ì€€²"Ğ"	8"8"8"8"8" "9Ğ«Àã¯"Ó"	8"8"8"8"8" *
core_count*correlation_id*
hlo_op*
program_id*
XlaModule:*device_vendor*loop_transpose_fusion*jit_forward_3d_conv*
clock_rate*cudnn-conv.1*
kernel*memory_size*LHD grid:219,40,1 block:256,1,1 private_mem:0 group_mem:49280 occ_pct:0*KGC grid:6240,1,1 block:256,1,1 private_mem:0 group_mem:2112 occ_pct:0*memory_bandwidth* input_transpose_fusion.1*
hlo_module*compute_cap_major*1-)jit(forward_3d_conv)/conv_general_dilated*LHD grid:69840,1,1 block:256,1,1 private_mem:0 group_mem:8192 occ_pct:0*		kernel_details*input_transpose_fusion*	tf_op*	x*H
D
@ grid:1280,1,1 block:256,1,1 private_mem:0 group_mem:0 occ_pct:0*name*compute_cap_minor*HD@ grid:1024,1,1 block:256,1,1 private_mem:0 group_mem:0 occ_pct:02*AMD2  –€2 °2	€€ ›¾M2	€€€øÿ2 	2 "#input_transpose_fusion_1.kd" loop_transpose_fusion.kd"Im3d2Col.kd
’
/device:GPU:7Ë%Stream #37(Kernel)ÕÍ7"9°’ïË³À‡¶"©"	8"8"8"8"8" "9°Ò˜Ó³À”Ï"ª"	8"8"8"8"8" "9°‰Ğ€´Àùş"­"	8"8"8"8"8" *LHD grid:219,40,1 block:256,1,1 private_mem:0 group_mem:49280 occ_pct:0* input_transpose_fusion.1*cudnn-conv.1*L
H
D grid:69840,1,1 block:256,1,1 private_mem:0 group_mem:8192 occ_pct:0*1-)jit(forward_3d_conv)/conv_general_dilated*memory_bandwidth*		kernel_details*device_vendor*jit_forward_3d_conv*name*	x*
program_id*compute_cap_major*loop_transpose_fusion*memory_size*	tf_op*
hlo_op*
XlaModule:*input_transpose_fusion*HD@ grid:1024,1,1 block:256,1,1 private_mem:0 group_mem:0 occ_pct:0*HD@ grid:1280,1,1 block:256,1,1 private_mem:0 group_mem:0 occ_pct:0*
hlo_module*
clock_rate*correlation_id*compute_cap_minor*
kernel*KGC grid:6240,1,1 block:256,1,1 private_mem:0 group_mem:2112 occ_pct:0*
core_count2*AMD2  –€2 °2	€€ ›¾M2	€€€øÿ2 	2 " loop_transpose_fusion.kd"#input_transpose_fusion_1.kd"Im3d2Col.kd
é	/host:CPUâÇHost Threads/583ÕÍ7";Xˆ®»¶¥ğ“Ü"ô"ó"8" 8)""8*"$8"% ";XˆÊÀÍ¥À±Ÿ"ô"ô"8" 8'""8("$8"% ";Wèìû¥ğÑŒ"ô"÷"8" 8!""8#"$8"% ZHost Threads/583ßÊHost Threads/586ÕÍ7":XøÄüòa€ß¶"ô"«"8" 8)""8*"$8"% ":XøÆÈ‘bğü×"ô"¬"8" 8'""8("$8"% ":W˜¿Òbàìé"ô"¯"8" 8!""8#"$8"% ZHost Threads/586ßÍHost Threads/589ÕÍ7":Xˆ”‹Ôsğü›"Ÿô"½"8" 8)""8*"$8"% ":Xˆ ³ïs€º·"Ÿô"¾"8" 8'""8("$8"% ":W åÓ½tÀĞè"Ÿô"Á"8" 8!""8#"$8"% ZHost Threads/589âĞHost Threads/592ÕÍ7";XÀÖç¡ğÔÉ" ô"á"8" 8)""8*"$8"% ";XÀ«Âˆ¢ğ»½" ô"â"8" 8'""8("$8"% ";W€ºúÎ¢Àø«" ô"å"8" 8!""8#"$8"% ZHost Threads/592*	GPU_7_bfc*allocator_name*
_p*&&input_transpose_fusion*	''x*correlation_id*fragmentation*bytes_available*"
"hlo_op*	data_type*bytes_allocated*_pt*##cudnn-conv.1*1!-!)jit(forward_3d_conv)/conv_general_dilated* ((input_transpose_fusion.1*,($kind:Unknown size:0 dest:512 async:1*_ct*	GPU_1_bfc*		peak_bytes_in_use*	GPU_6_bfc*	GPU_5_bfc*	GPU_3_bfc*	GPU_2_bfc*bytes_reserved*)
)kernel*	GPU_4_bfc*memcpy_details*
_c***loop_transpose_fusion*$$
hlo_module*jit_forward_3d_conv*allocation_bytes*	tf_op*	device_id*

requested_bytes*module_name*
XlaModule:*
id*%%
program_id*  name*	GPU_0_bfc*addr"XXhipModuleLaunchKernel" WWhipExtModuleLaunchKernel
eTask Environment*profile_stop_time*profile_start_time2®™È›şÊ2·Æ–›şÊ"tw003