// Real parameter sets and slice-header prefixes, produced once with the ffmpeg CLI (libx264) and checked
// with `ffmpeg -bsf:v trace_headers`; see each fixture for the command. Tests never call ffmpeg.

/// Bytes of real H.264 streams used as test vectors.
enum H264Fixtures {
    /// One encoded stream: SPS, PPS and the first bytes of its IDR and first P slice NAL units.
    struct Stream {
        let sps: [UInt8]
        let pps: [UInt8]
        let idrSlice: [UInt8]
        let pSlice: [UInt8]
    }

    /// ffmpeg -f lavfi -i testsrc2=size=320x240:rate=25 -c:v libx264 -profile:v baseline -g 10 -f h264
    static let baseline = Stream(
        sps: hex("6742c00dd90141fb011000000300100000030320f142a480"),
        pps: hex("68cb83cb20"),
        idrSlice: hex("65888411f1088ab830217e0214c88000"),
        pSlice: hex("419a3823f8308ba93f24708000c814f2")
    )

    /// ffmpeg -f lavfi -i testsrc2=size=1918x1078:rate=30 -t 1 -c:v libx264 -profile:v high -bf 3 -f h264
    static let high = Stream(
        sps: hex("67640028acd940780227a9b0110000030001000003003c0f183196"),
        pps: hex("68ebe3cb22c0"),
        idrSlice: hex("6588840047dae3985bd757da423e8389"),
        pSlice: hex("419a246c457fbc7c7f296abf980e3cd5")
    )

    /// ffmpeg -f lavfi -i testsrc2=size=352x288:rate=24000/1001 -c:v libx264 -profile:v high10 -pix_fmt yuv420p10le -f h264
    static let high10 = Stream(
        sps: hex("676e000da6cd9416096c04400000fa40002ee003c50a6580"),
        pps: hex("68ebe3cb22c0"),
        idrSlice: hex("658884017fd4576d7dda781513696a55"),
        pSlice: hex("419a236c49ffbaf6b35a07f26ab94ec0")
    )

    /// ffmpeg -f lavfi -i testsrc2=size=322x182:rate=30 -c:v libx264 -profile:v high422 -pix_fmt yuv422p -f h264
    static let high422 = Stream(
        sps: hex("677a000dbcd941519e222f0110000003001000000303c0f1429960"),
        pps: hex("68ebe3cb22c0"),
        idrSlice: hex("658884009fd9674d6278ad3ceb112683"),
        pSlice: hex("419a246c49ffb836da2e487be73358fe")
    )

    /// ffmpeg -f lavfi -i testsrc2=size=322x182:rate=30 -c:v libx264 -profile:v high444 -pix_fmt yuv444p -f h264
    static let high444 = Stream(
        sps: hex("67f4000d919b282a33c7c5e022000003000200000300781e28532c"),
        pps: hex("68ebe3c44844"),
        idrSlice: hex("658884009fd9674d6278ad1cc3726c1d"),
        pSlice: hex("419a246c49ffb1f8dccf09a4a8825d2a")
    )

    /// ffmpeg -f lavfi -i testsrc2=size=322x182:rate=30 -c:v libx264 -profile:v high444 -pix_fmt yuv444p -x264-params cqm=jvt -f h264
    static let high444ScalingMatrix = Stream(
        sps: hex("67f4000d919b282a33c7c5e022000003000200000300781e28532c"),
        pps: hex("68ebe3c44c000440"),
        idrSlice: hex("6588840047dae398691a4c14f00a8cd0"),
        pSlice: hex("419a246c457fb6c817d37e9326a87a76")
    )

    /// ffmpeg -f lavfi -i testsrc2=size=720x572:rate=25 -c:v libx264 -flags +ildct+ilme -x264-params tff=1 -f h264
    static let interlaced = Stream(
        sps: hex("6764001eacd940b424fd6022000003000200000300643e28532c"),
        pps: hex("68fba3cb22c0"),
        idrSlice: hex("6588820b17cc576d6278ad3e89b4b52a"),
        pSlice: hex("419a20de57b1b6b7c11f98ccbf02afb2")
    )

    /// ffmpeg -f lavfi -i testsrc2=size=640x360:rate=50 -c:v libx264 -profile:v main -b:v 1M -maxrate 1M -bufsize 2M -x264-params nal-hrd=vbr -f h264
    static let hrd = Stream(
        sps: hex("674d401feca05017fcb8088000000300800000323030007a12000f425369c03c60c658"),
        pps: hex("68ebecb2"),
        idrSlice: hex("658884002fffc5f6084e4cceb07539e1"),
        pSlice: hex("419a236c423f6f67a83b281e0412d78b")
    )

    /// ffmpeg -f lavfi -i testsrc2=size=160x120:rate=30 -c:v libx264 -profile:v high -x264-params cqm=jvt -f h264
    static let highScalingMatrix = Stream(
        sps: hex("6764000bacd942847e5c0440000003004000000f03c50a6580"),
        pps: hex("68ebe3cb3002c0"),
        idrSlice: hex("658884009fd9674d6278ad3ceb11266d"),
        pSlice: hex("419a246c49ffb836db1e89cb1bb81f6f")
    )

    /// ffmpeg -f lavfi -i testsrc2=size=320x240:rate=30 -frames:v 30 -c:v libx264 -bf 3 -g 12 -keyint_min 12 -sc_threshold 0 x.mp4, then
    /// h264_mp4toannexb: SPS, PPS and the first 16 bytes of each slice, one slice per access unit, decoding order.
    static let closedGOPSPS = hex("6764000dacd94141fb0110000003001000000303c0f1429960")
    static let closedGOPPPS = hex("68ebe3cb22c0")
    static let closedGOPSlices: [[UInt8]] = [
        hex("6588840047dae3985bd757da423e8389"),
        hex("419a236c457fb7e7f9235bd9abc77fcc"),
        hex("419e4178853ffdb17599502ee95c1a0f"),
        hex("019e626a42dff0eac601333fe1a33f72"),
        hex("419a6749a84168994c08cfdf90828659"),
        hex("419e8545112c25ffeeeb1c12d543f957"),
        hex("019ea47442dfb46a8c614b270619f727"),
        hex("019ea66a42dfb69cc59cb74fff3fe6d4"),
        hex("419aaa49a8416c994c08cf3683afb873"),
        hex("419ec845152c29ffb9e1e92de501d5e0"),
        hex("019ee96a42dfb6b4cc117dae45dfd989"),
        hex("419aeb49a8416c994c085bff4fae527f"),
        hex("658882005fd4576d6278ad3e89b4b52a"),
        hex("419a246c457f34965a01742b779ce10e"),
        hex("419e427884bfb63bff1679f01396d07f"),
        hex("019e617442dfb4708328840cde107b21"),
        hex("019e636a42dfb69cc59d6d2564a5da00"),
        hex("419a6849a84168994c08af3c3fc05912"),
        hex("419e8645112c25ffb091dba8972ddbd6"),
        hex("019ea57442dfbc43728ebaf21f629631"),
        hex("019ea76a42dfb34d96284d5e3331a905"),
        hex("419aab49a8416c994c085bff610db8f9"),
        hex("419ec945152c2dffb6b5b826691b9c87"),
        hex("019eea6a42dfb46e0681960ad8dff976"),
        hex("65888400dfd4d44633d757db4462928f"),
        hex("419a246c425f5217e352339c7b986d16"),
        hex("419e427884bfb6419dd8bfea1d243bb6"),
        hex("019e617442dfaf3a9d396dff630bc83f"),
        hex("019e636a42dfb69bc6b3827e78eaa307"),
        hex("419a6549a84168994c085bff4fadc7b9"),
    ]

    /// ffmpeg -f lavfi -i testsrc2=size=320x240:rate=30 -frames:v 30 -c:v libx264 -bf 3 -g 12 -keyint_min 12 -sc_threshold 0 -x264-params open-gop=1 x.mp4, then
    /// h264_mp4toannexb: SPS, PPS and the first 16 bytes of each slice, one slice per access unit, decoding order.
    static let openGOPSPS = hex("6764000dacd94141fb0110000003001000000303c0f1429960")
    static let openGOPPPS = hex("68ebe3cb22c0")
    static let openGOPSlices: [[UInt8]] = [
        hex("6588840047dae3985bd757da423e8389"),
        hex("419a236c457fb7e7f9235bd9abc77fcc"),
        hex("419e4178853ffdb17599502ee95c1a0f"),
        hex("019e626a42dff0eac601333fe1a33f72"),
        hex("419a6749a84168994c08cfdf90828659"),
        hex("419e8545112c25ffeeeb1c12d543f957"),
        hex("019ea47442dfb46a8c614b270619f727"),
        hex("019ea66a42dfb69cc59cb74fff3fe6d4"),
        hex("419aaa49a8416c994c08cf3683afb873"),
        hex("419ec845152c29ffb9e1e92de501d5e0"),
        hex("019ee96a42dfb6b4cc117dae45dfd989"),
        hex("4188bb05ffd4576d6278ad3e89b4b52a"),
        hex("019f0b442dffc11dd735a47f6eb7a4cf"),
        hex("419b107c99454d2c5734965a01742b77"),
        hex("419f2e7884bfb63bff1679f01396d07f"),
        hex("019f4d7442dfb4708328840cde107b21"),
        hex("019f4f6a42dfb69cc59d6d2564a5da00"),
        hex("419b5449a84168994c08af3c3fc05912"),
        hex("419f7245112c25ffb091dba8972ddbd6"),
        hex("019f917442dfbc43728ebaf21f629631"),
        hex("019f936a42dfb34d96284d5e3331a905"),
        hex("4188e6037fd4d44633d757db4462928f"),
        hex("419fb645152c25ffb98466aa6b9170a6"),
        hex("019fd57442dff00715aa5e35d00d56c2"),
        hex("019fd76a42dff86074319e58a54bc1f1"),
        hex("419bdc7a265117097f5217e352339c7b"),
        hex("419ffa7884bfb6419dd8bfea1d243bb6"),
        hex("019e197442dfaf3a9d396dff630bc83f"),
        hex("019e1b6a42dfb69bc6b3827e78eaa307"),
        hex("419a1d49a8416c994c085bff4fadc7b9"),
    ]

    // Hand-built SPS NAL units covering syntax libx264 never writes (scaling lists, POC type 1, full VUI with
    // VCL HRD, separate colour planes, monochrome fields); each was checked with
    // `ffmpeg -f h264 -i sps.h264 -bsf:v trace_headers -f null -`, which parses every field as expected.

    /// High, 1920x1080, seq_scaling_matrix_present with 4x4 lists 0-1 and 8x8 lists 6-7 (one using the default flag).
    static let scalingLists420 = hex("67640028ad84628e4fff8524924924924924924924924924924924924924924924924a11d940780227e540")
    /// High 4:4:4 Predictive, 1280x720, the 12-list form (lists 8 and 11 are the Cb/Cr 8x8 lists).
    static let scalingLists444 = hex("67f4003291b4924924924920108931ffffffffffffffffd9405005b9")
    /// Main, 720x576, POC type 1 (cycle 4, -6, 10), VUI with Extended_SAR 64:45, colour description, chroma location,
    /// 60000/1001 timing, a two-schedule VCL HRD and bitstream restrictions (reorder 3, DPB 5).
    static let pocType1 = hex("674d401ed0a88206851816824dff80200016fb808080d3800001f480007530542400fa000fa0001770003e837bdf16d040204340")
    /// High 4:4:4, separate_colour_plane_flag, 10-bit, 128x128 cropped by 1/2/3/4 (CropUnitX = CropUnitY = 1).
    static let separatePlanes = hex("67f4001f92d9b28408e990a8")
    /// High, monochrome, frame_mbs_only 0 (CropUnitY = 2), log2 MaxFrameNum and MaxPicOrderCntLsb 16, 160x160 cropped.
    static let monochromeField = hex("6764001ff06c69428a693680")
    /// Baseline, level_idc 9, constraint_set0...2, id 31, POC type 1 with delta_pic_order_always_zero, 16 refs, gaps allowed.
    static let alwaysZeroPoc1 = hex("6742e0090415e118b139")

    // Hand-built slice-level vectors. The FMO PPSs were traced by ffmpeg; its decoder refuses FMO slices, so the FMO
    // slice was checked as `weightedFieldSlice`, the same header against `weightedPPS` (no slice groups), whose trace
    // matches field for field; only the trailing 3-bit slice_group_change_cycle differs.

    /// Baseline, id 1, 4x3 macroblocks (12 map units), frame_mbs_only 0, MaxFrameNum and MaxPicOrderCntLsb 16.
    static let fmoSPS = hex("6742001e5ca23240")
    /// PPS 2: three slice groups, map type 0 (run lengths 6, 7, 8).
    static let fmoType0PPS = hex("6868731c463c80")
    /// PPS 3: two slice groups, map type 2 (top_left 1, bottom_right 10).
    static let fmoType2PPS = hex("68221342f1e4")
    /// PPS 4: four slice groups, map type 6 (12 two-bit slice_group_id).
    static let fmoType6PPS = hex("682a087183636378f2")
    /// PPS 5: two slice groups, map type 4, change rate 3, bottom_field_pic_order_in_frame_present, 2 refs,
    /// weighted_pred, redundant_pic_cnt_present, pic_init_qp 22, chroma_qp_index_offset 3.
    static let fmoType4PPS = hex("6832516d6099ac")
    /// PPS 6: as PPS 5 without slice groups.
    static let weightedPPS = hex("683a6b04cd60")
    /// P bottom field through PPS 5: frame_num 9, lsb 7, redundant_pic_cnt 1, 3 refs, list modification, a weight
    /// table (chroma weights on ref 1), MMCO 1 then 5, slice_qp_delta -3, deblocking off, change cycle 5.
    static let fmoFieldSlice = hex("41cd3babdb4431672272532167228869d5a580")
    /// The same slice through PPS 6 (traced by ffmpeg).
    static let weightedFieldSlice = hex("41cf3babdb4431672272532167228869d52c80")

    /// PPS 0 for `pocType1`: bottom_field_pic_order_in_frame_present, CAVLC.
    static let pocType1PPS = hex("68de3c80")
    /// POC type 1 IDR (frame_num 0).
    static let pocType1IDR = hex("6588873ffe")
    /// POC type 1 reference P: frame_num 1, delta_pic_order_cnt 3 / -1.
    static let pocType1P = hex("419a2663ffe0")
    /// POC type 1 non-reference P: frame_num 2, delta_pic_order_cnt -2 / 5.
    static let pocType1NonRefP = hex("019a45147ffc")
    /// POC type 1 reference P with MMCO 5: frame_num 2.
    static let pocType1MMCO5 = hex("419a5937ffe0")
}
