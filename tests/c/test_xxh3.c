/* XXH3-64: every length path (0, 1-3, 4-8, 9-16, 17-128, 129-240, long
 * with stripes, blocks and scramble) against vectors from the xxHash
 * reference implementation (v0.8.x, XXH3_64bits_withSeed, generated outside
 * this repo), for four seeds; streaming equals one-shot for every split of
 * short messages and for random splits of long ones; digest leaves the state
 * untouched; a flipped bit or byte changes the hash.
 *
 * The same vectors run natively (scalar path) and in both wasm builds (the
 * SIMD128 path where compiled with -msimd128), which is what proves the two
 * paths agree. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "xxh3.h"

static const uint64_t seeds[4] = {0, 0x9E3779B185EBCA8Dull, 0xFFFFFFFFFFFFFFFFull, 0xDEADBEEFull};

/* XXH3_64bits_withSeed(pattern, n, seeds[s]) for n = 0..300. */
static const uint64_t short_vectors[301][4] = {
    {0x2d06800538d394c2ull, 0xa8a6b918b2f0364aull, 0x4c093276ae47a555ull, 0x6676ee0cdb2228c2ull}, /* 0 */
    {0x32cd626f54ba457eull, 0xe9c59be472ab0449ull, 0x1e2575122877b8a7ull, 0xbac5cb453febf43eull}, /* 1 */
    {0x2ccf4391dedeb5a3ull, 0x9f0fa820ef85dc0cull, 0xf7ac741a2ece4e5eull, 0x3d183126e5e1dd94ull}, /* 2 */
    {0x4b1ee21562e4323dull, 0x8b5a73e7aeb79b5bull, 0x47d0e748a095fc2eull, 0x4585551bee525f3dull}, /* 3 */
    {0x9ed47e71ebdd1970ull, 0xc230049f0a0337f2ull, 0xa9142b28a28d49e6ull, 0x83bc7fac63a18fd6ull}, /* 4 */
    {0x70d8846069d67fffull, 0xa2f0ecb60d9e39fdull, 0x7fe0dc873d26150aull, 0x30549a44d138acd9ull}, /* 5 */
    {0x0437250546bcd75dull, 0xdcee4ae5700f7072ull, 0xb52bd74e4bd729a9ull, 0x43e9a34efd554162ull}, /* 6 */
    {0x150140f46854b3a8ull, 0x1dfd8d2b273476caull, 0xd3caa50028562fbaull, 0xbfdbc9a54ae0af12ull}, /* 7 */
    {0x8368b17a687ac5beull, 0xfeb25768682219b0ull, 0x7e84bca9fde49b17ull, 0x89a47cec0f09c830ull}, /* 8 */
    {0x07fdfeff3737644cull, 0x976f4bedb1b41627ull, 0x9e890297ea41e42eull, 0xeba30ca8c7a5ce32ull}, /* 9 */
    {0x07d1b4d8242ac424ull, 0xf8d398f8656a1a32ull, 0x30f3150514852fa8ull, 0x20913d9128931f43ull}, /* 10 */
    {0x1cbf4bd47c3c37d4ull, 0x9bf985b52a1558c4ull, 0x4113d0785091310aull, 0xd459575d91c602aaull}, /* 11 */
    {0x652d13a3782492b7ull, 0x7cf980cff3dc421aull, 0xd94714199fc99e68ull, 0x645e822c3f885141ull}, /* 12 */
    {0x902046e5e755eae7ull, 0x7d88bc118042a532ull, 0xdb2a4fe70ec4c68eull, 0x06e641887f542ad4ull}, /* 13 */
    {0xc3fe37245bff0f74ull, 0x54bc0768ba03b5b8ull, 0x0c15b98a8ae22b7dull, 0x1b01a6308dbc96a6ull}, /* 14 */
    {0x25b74146c9255649ull, 0xe769d6359af21139ull, 0xc25be25665470785ull, 0x9237cf3801e2226eull}, /* 15 */
    {0xe4cd981221579c6full, 0xf6b607abbff40a74ull, 0xf212badfac7b1a99ull, 0x0583fdfec9df053full}, /* 16 */
    {0xdf4916f527f90f58ull, 0x2ca03f39a70797b4ull, 0x07f3dae1efa4fd82ull, 0xe9a90bb41ba9d3feull}, /* 17 */
    {0x67817a6432bb9e6eull, 0x556123bbde923e49ull, 0xafc8cc3907df2e1full, 0x6006b3068aedc96cull}, /* 18 */
    {0x1b785877f6e4d23bull, 0x449b3d976f4cfca4ull, 0xb2f481b6bec36c43ull, 0x867ba5e4bf8eca57ull}, /* 19 */
    {0x065e151b5dbccc68ull, 0x652af612c44fbe5full, 0x069230c6a2dacbe3ull, 0xc72b6d19e6b8d29eull}, /* 20 */
    {0x288649172d353273ull, 0xa44b18d3369877e0ull, 0xe9d219def7a9e093ull, 0xa459082ed78f2b9cull}, /* 21 */
    {0xbd976ebe23af1dcbull, 0x75d1c629398bde46ull, 0x6540b79746d56f02ull, 0x2c4ed41f81c6942bull}, /* 22 */
    {0x46969821d3748efaull, 0xe5f98ff248d1d2efull, 0x8eae6d153d54e65aull, 0x4f67f028695bf026ull}, /* 23 */
    {0xf4815273f90f1f2bull, 0xdc7c8f2c1282bebdull, 0xaa7cbe9d08b81aefull, 0x86cefa814a53a8aeull}, /* 24 */
    {0x7abd6930cec85d9full, 0x58303a6380e0b235ull, 0xe690d8662a78f5dbull, 0x975d7d31a79e53efull}, /* 25 */
    {0x95c3d0d4d748d8f2ull, 0x74fc7c9059d0c911ull, 0x10c14aa9f6dae1beull, 0xfca0c77ecc40273bull}, /* 26 */
    {0xc79db640dfd41880ull, 0x5d58947cba9ae1abull, 0xdee647c4a3855da0ull, 0x0f0515f03aeab70dull}, /* 27 */
    {0x002257b80dca487dull, 0xdb2448deaa0dea86ull, 0x71ec26a348e794e6ull, 0xff8bae4c2e6c9ea0ull}, /* 28 */
    {0x99769d98b48ab4a2ull, 0xcc8b6288c80a85fbull, 0x97bcfa398e843a5bull, 0x6fc4591e1f82ff5bull}, /* 29 */
    {0x555a906d818c317bull, 0x5fc0aae9b452284bull, 0x36823dbcc44eaa8dull, 0x6977b182191b15b9ull}, /* 30 */
    {0x9bb9da0c02eba259ull, 0xd6bc7d11de16c19cull, 0x308456a08775d74dull, 0x1bca089b32ffe5ecull}, /* 31 */
    {0xbfeacf2d9c5e74dbull, 0x69b12493a074860aull, 0x5eb69a89e7896257ull, 0xf8dfff9af2858518ull}, /* 32 */
    {0x08106d1e20687494ull, 0xd4c227ef7089e8caull, 0x29412e18152fed24ull, 0x4560a3bc4ff08b22ull}, /* 33 */
    {0xf739504edda3ae16ull, 0xd38fba8e0cb65bbcull, 0xb7fb2b87d95c60aeull, 0x6b867a197f79a86full}, /* 34 */
    {0xd13e230f430e3b74ull, 0x6dfb1f3e9dff0586ull, 0xb50c3f1c01b5df27ull, 0x28bc8f3476220a05ull}, /* 35 */
    {0xbd13d48994e65b92ull, 0x8f02d6ee52feeed3ull, 0x61e37d8c11fc474aull, 0xa2ca0700b102b867ull}, /* 36 */
    {0xce225686a4b104e4ull, 0x3b9098d04b3c5475ull, 0xfbf47e7b553ba5edull, 0x754f60537d9f1e39ull}, /* 37 */
    {0xe5c9d51b541c0dd9ull, 0x019292717528ad2cull, 0x469b0a138f24fa50ull, 0xa583633f93d5de6dull}, /* 38 */
    {0x5bd2567a2cf47087ull, 0xbf7a0968af1e2ea3ull, 0x594e0837dfbd77a0ull, 0x33d19dd16761d22bull}, /* 39 */
    {0xdf82a8bc007c76e4ull, 0x315ea65b58b57e7cull, 0xb3d2ff2ea22b140full, 0xa0beffbf1e87a814ull}, /* 40 */
    {0x69415a3879988b3cull, 0xd7a1ba5f1c4d1a0dull, 0x7e4cc427c80c4a8dull, 0xadae02edbbe24212ull}, /* 41 */
    {0xf5f634235cc43bf1ull, 0xc659fa20a5f12f62ull, 0xff52266702e0168bull, 0xfd1bef6947172c53ull}, /* 42 */
    {0x17e2e3f4c61305eeull, 0x2004cc1aa1eac32eull, 0xf35b6732498ee10eull, 0x96543a3b6b5096dfull}, /* 43 */
    {0x47fb115038f414c0ull, 0xbb14141bcf60a479ull, 0x01f5f1e148736a09ull, 0x8622aacde8558b76ull}, /* 44 */
    {0x71037b18071ee2a1ull, 0xd05fe893140ccb06ull, 0xa8ed01c66b849bedull, 0xbc060c6c2781d4a3ull}, /* 45 */
    {0x1c4e25e1e0855dcfull, 0x67de979cd2704a49ull, 0x444fe873d80a3e87ull, 0xbd6f47585ad2e6deull}, /* 46 */
    {0xd9c72f893e6877feull, 0xbc787f18f5f85e46ull, 0x2f16b10fc4db34dfull, 0xeb68fb6f235c9bf9ull}, /* 47 */
    {0xd243031d6847439aull, 0xfe9c3f52088091f5ull, 0x75bab163b0b28134ull, 0x173bb8b7103b1264ull}, /* 48 */
    {0x4fa68d83db77a6ccull, 0xd2dc1f16dd9aed44ull, 0x8d7d940f37db40a2ull, 0xc0160d03c2b0fdabull}, /* 49 */
    {0x3423e73579ac8b43ull, 0x5322817c8db0eb5cull, 0x92d7afa30dcd7458ull, 0xb50e9beaa77c0da0ull}, /* 50 */
    {0x46702b6b93ea6fbeull, 0x938edec3d380fba9ull, 0xe3a43b131e17cb4dull, 0x9b80f9b77ed70f22ull}, /* 51 */
    {0xa0f292ec85661b20ull, 0x6b64b8542220c2adull, 0x326a685b005a822bull, 0x4d22a4df9674578cull}, /* 52 */
    {0xf26f081fcba0afc2ull, 0x325d722d730b97d4ull, 0x0da9595b5371861eull, 0xe64a98c0def7e64full}, /* 53 */
    {0xd11b173307163c7eull, 0x285faf464f19044full, 0x2831875e43c72408ull, 0x489d3fc561a45bfbull}, /* 54 */
    {0x24628ed8f6117d57ull, 0x4e67bd9ba413b654ull, 0xddc4a03400134f95ull, 0x2305842e96917df6ull}, /* 55 */
    {0xae2dafb4d25d4046ull, 0x823a1a80f3bafa94ull, 0xb906a250fcb6c158ull, 0x70b66df759719f7bull}, /* 56 */
    {0x14a233ca39970d43ull, 0x6672f96ec22b1859ull, 0xf56ad06ee3ec2c64ull, 0x5fe646d191e70f20ull}, /* 57 */
    {0xf2472162e57177dbull, 0x0fb01a58e2bc71ccull, 0x73b5821138e8ec77ull, 0x7961a329c5821bf9ull}, /* 58 */
    {0xf37e020ddfd26005ull, 0x984561723665d4e6ull, 0x86e23022f5972201ull, 0x898d1112c22efd71ull}, /* 59 */
    {0x3575f82cfdd418f1ull, 0xf1cad503b8052e8cull, 0x1c32a9e931be7b19ull, 0xe9ca548a48b92281ull}, /* 60 */
    {0xea59e250634dfd14ull, 0x64b2328b28f0d4f2ull, 0xdb47d686b65e576cull, 0x91312550940414e7ull}, /* 61 */
    {0x36a3146d11963538ull, 0x1cdfbf07eccadb83ull, 0x457f04507573cc74ull, 0xc6f76ebe6db31d39ull}, /* 62 */
    {0x7663a5fb8c95eec0ull, 0x3fd5c747d411a244ull, 0x528e21b5a7792f39ull, 0x65eb929cd9566340ull}, /* 63 */
    {0x7ae35ade472a64d5ull, 0x033caf91835b6d4full, 0x48ecef8652081e5cull, 0x153e428b6c1882f8ull}, /* 64 */
    {0x4be824e7bb5a7e89ull, 0x6bf0cac028f40992ull, 0x5dcf25b50ee62265ull, 0x7bbcd0502c9a1308ull}, /* 65 */
    {0x2906d2d4a4fb3291ull, 0x318dc301d3685904ull, 0xed52477cd6ce635full, 0xd58cf6224881bb8cull}, /* 66 */
    {0x8cb2aa7e264eb256ull, 0x0bf1534f2c794e0cull, 0xe5251cc7837c3909ull, 0x51d33859c3c764e5ull}, /* 67 */
    {0x7e663f894a6f41c8ull, 0x8981e1940b0a4ab4ull, 0x792b35ace6ace4e2ull, 0x28d985d9b0f9f0a7ull}, /* 68 */
    {0x3a37df40d29a8d36ull, 0x80d8a2b35fbc47d1ull, 0x644a15aac1c3ebdaull, 0x9eb4aa6fc64d7a17ull}, /* 69 */
    {0x00b0f42434d0ed73ull, 0x8abf7e19bff3a11eull, 0x3dc68f25c0922238ull, 0xe3f4d71078362994ull}, /* 70 */
    {0x80184cdd737b2b3bull, 0xbeb4122472c860e7ull, 0xc4a3b88557358c11ull, 0x3a156f6d99709239ull}, /* 71 */
    {0xd43e342030e299c1ull, 0xa03d8ebf681bab6eull, 0xe87ce567fdc69d53ull, 0x12bcbdabd331f7e1ull}, /* 72 */
    {0x038ef23ead3174f0ull, 0xaca359d3a096e572ull, 0x27adc034f17451a1ull, 0x81f3890b41e579aeull}, /* 73 */
    {0xad0ccc74c18c41dfull, 0x0ac1cca125db8985ull, 0xb9203b45ac012059ull, 0x6bfd338b2f6bc686ull}, /* 74 */
    {0x7537c7cdb1878ed8ull, 0x2675fbb9586c556cull, 0x7c515525f70929c1ull, 0xa5aa570dd152bd09ull}, /* 75 */
    {0xf10e6d8dc67835b9ull, 0x4a01b0515a7db049ull, 0x13e6e99816710385ull, 0xd26d3232c455fa80ull}, /* 76 */
    {0xdf45b35ae98f139bull, 0x51740603b749f5c5ull, 0xe901390ff1d85fa8ull, 0x00fd35c82e6e3d6full}, /* 77 */
    {0x06a16744a3db291bull, 0xcbcf44bcfd259fe4ull, 0x61e5a9096c32c29full, 0x6474219859bbc490ull}, /* 78 */
    {0x6b99695bb15c6e68ull, 0x9d781677f8683476ull, 0x0cb90419a32858b8ull, 0x331eb77c2c93dceaull}, /* 79 */
    {0x9e5a3261919e5beeull, 0x2407fe57f0f2abdcull, 0x1c79f770ff71b943ull, 0xb6f7d1772d6f0b51ull}, /* 80 */
    {0x546e3c08cce0a5e5ull, 0xd5f84f5ae6b23409ull, 0x0c7d472c3b9b7270ull, 0x7992afa1a8135469ull}, /* 81 */
    {0xc3110d81d04e72ecull, 0x0054920b809649ffull, 0x2ddc853e8796f23dull, 0x7302981d74be7e05ull}, /* 82 */
    {0xc87e80accb036fb0ull, 0x461409653b05744bull, 0xf8c4cf5469389e3eull, 0xdf0c58ca5ba3bf4bull}, /* 83 */
    {0x526da1c610ccf749ull, 0x0b38babdd5c70b23ull, 0x1286f380797f309bull, 0xe76b5f90d64b620aull}, /* 84 */
    {0x70e35a90841594cfull, 0xef4b5848e0039135ull, 0x2ab8ddddbeb178c8ull, 0x5d7c903992c711aeull}, /* 85 */
    {0x3c04ab83dd05f25aull, 0x6cd5e14055800b12ull, 0x76d36d06c34f1f94ull, 0xcebb2c6e7865b982ull}, /* 86 */
    {0x6751a8b012a40641ull, 0x953ba668410ffed4ull, 0xfdeb75b22d24f21eull, 0xba604db1d34aa999ull}, /* 87 */
    {0xe07a824be3f6d60full, 0x8fda124cdc861857ull, 0x29d5713a28016541ull, 0x9db31b669f1f3634ull}, /* 88 */
    {0xb2990250ca7b3d87ull, 0x7fde34d6bd4f522aull, 0x93b3509989458edeull, 0x95ad66a493ce0526ull}, /* 89 */
    {0x7a0122d50e402936ull, 0xdf855c895608f618ull, 0xac18e835202ff161ull, 0xb9ffed53fbc073feull}, /* 90 */
    {0x191b93427cf35101ull, 0x648164ffd0a24be5ull, 0xe143c77d97838288ull, 0x4e6ce96978714a18ull}, /* 91 */
    {0xd7d80313cc5745edull, 0xbffcf82a4f78cfbbull, 0xb1d0b469ee7bdc80ull, 0xce14ab8456aefbadull}, /* 92 */
    {0x25702f38d70a0ef1ull, 0x550f09e8e86a6212ull, 0x91c654c57cd6a42bull, 0xefb5b30990ce4464ull}, /* 93 */
    {0x3c0f106c5f9de020ull, 0x4efccf85e0d77cd1ull, 0x54ece0d51dd75ba8ull, 0x4efd3a7f27dfe100ull}, /* 94 */
    {0x5bbb3a61730dae42ull, 0x0be1284ae7df9aceull, 0x698ac222e20ef80cull, 0x971819a2308ee6edull}, /* 95 */
    {0xa4f68175b3095adcull, 0xc8b6c27fe5579c6eull, 0xd7b301ce761ed725ull, 0xc42a449ece895a9aull}, /* 96 */
    {0x2e37fc42173af97full, 0x6ca8d20f49ae4dadull, 0xb8de20c06ae3e188ull, 0x6faf0cac8c436db6ull}, /* 97 */
    {0x0f3825f235bda17cull, 0x6c344b44197aa026ull, 0xe3494109ddf8655dull, 0xd6b5f16dece551aeull}, /* 98 */
    {0x0c52e15c58206afdull, 0x454bb122d296c745ull, 0x27c0fc717c5fa24dull, 0xbb039e030a8b0bc1ull}, /* 99 */
    {0x3704a294b4fd9d80ull, 0xb615a2938dae321dull, 0x40707133522681efull, 0x7157846ad256a255ull}, /* 100 */
    {0xf43c5327dbca8563ull, 0xf81917849f25d4c4ull, 0xc807aa8336b17287ull, 0x74af41cedddc37deull}, /* 101 */
    {0xff4b15eb6b0d44e2ull, 0xc32d720b218b5b4full, 0xf493ab2e0754423cull, 0x59175348aa80fed5ull}, /* 102 */
    {0xce25b6034c9aa1f3ull, 0xdbdd39ed9863e489ull, 0x6e813cbf4cbb39c3ull, 0x7566ad7dfb620105ull}, /* 103 */
    {0x9761bf3a6acc5990ull, 0x16f1cd2b8eeefa9full, 0xfa1e4c893bdabc46ull, 0xf74cdd04839e3132ull}, /* 104 */
    {0x1fda7c967d69b58eull, 0xaf74daff325d8a5aull, 0xe068e0e8d2f79d35ull, 0xe14e9d11a8917febull}, /* 105 */
    {0xdd4440f44a822b70ull, 0x24b2e3c00c0b8a56ull, 0xc5642309ae400ce3ull, 0x8abcf307875f5db6ull}, /* 106 */
    {0x79bbb31b7fe2bd89ull, 0x835fd75ed6186583ull, 0x378c6ba6bf9c8074ull, 0xd1b02afcd9270304ull}, /* 107 */
    {0x53424fe9114dc078ull, 0xb9250d1cd0caefa2ull, 0x39ebe11a0593db74ull, 0xd8f2a0c60ed72a81ull}, /* 108 */
    {0x33c55273c53bd0bfull, 0x2e3900cf07e550b7ull, 0xf62edce21ded833cull, 0x148eab1efd9e1a1bull}, /* 109 */
    {0x2ded8a9cd8075e54ull, 0x70bcd8329395a806ull, 0x462d8a92efe0bd3bull, 0x8413dde13c82b7e7ull}, /* 110 */
    {0xfc06672a7afbdfc8ull, 0x0b69b16f5d62f1a9ull, 0x6fb5a00485bc8668ull, 0x251396c2bb3f3563ull}, /* 111 */
    {0x8b7f4eb9f8e098beull, 0x34069531693a4077ull, 0xd9b39f6d0d0fbb89ull, 0x7454d25380c9a7f1ull}, /* 112 */
    {0xa47e41dce2e74a35ull, 0x88ac519902310d25ull, 0x3612fc0c855b99a0ull, 0xf84f52011c586955ull}, /* 113 */
    {0xe81ad7eb55cfbe6aull, 0xf6be443bfe2de199ull, 0xcd1f32c6df0f2276ull, 0x64177a960f1abfb5ull}, /* 114 */
    {0xd39391996599123cull, 0xf18f0b2a3a6e4389ull, 0xae8fdb794a10599full, 0x58009036da942ee1ull}, /* 115 */
    {0xb4eef26b46ae75faull, 0x73a0c063a6893f4cull, 0x120bd6b10fda921aull, 0xbc7f326a6247adecull}, /* 116 */
    {0x2adaad6bcb29ca0bull, 0xf4d89180f5a82c7aull, 0x2104176784f934c7ull, 0x86910ae0a3fe9792ull}, /* 117 */
    {0xe6fa5ea279f722c7ull, 0x4a6bc6a98eabb97cull, 0xe4b07206dc9c93d5ull, 0xf7163fd950c29486ull}, /* 118 */
    {0xc51a09ec421e4e0aull, 0x547d6b4be310b228ull, 0x755c9e3f050f840aull, 0x31eccb90914a1c1eull}, /* 119 */
    {0x1001963e2afb5a54ull, 0x26b1bb46880a9efdull, 0x035aae2c2649267bull, 0x757b296171874e45ull}, /* 120 */
    {0xf13bbb07c11bc516ull, 0x5d8f12591ad224f2ull, 0x922272f1756feadfull, 0xba7be1bb7e19c60cull}, /* 121 */
    {0x00f3049da0c1b4c6ull, 0x45ef78239812c5e2ull, 0x2f13d3ecd5e71c69ull, 0x7930727d7ca41a41ull}, /* 122 */
    {0x8004122b94233a73ull, 0xe394ae87b5b9ea7eull, 0x1458b5366c2f6c42ull, 0x4c37f1534cdda116ull}, /* 123 */
    {0xe2e498478ad17246ull, 0x138b184a6d6ebf59ull, 0x9eca03783f74b71eull, 0x47e1ae19c601ee9dull}, /* 124 */
    {0x7e96a0b90292bec7ull, 0x9290e0f3623f62c1ull, 0xdaa99b60ebcf682dull, 0xadf2c9d461556110ull}, /* 125 */
    {0x0d8b53794d3b83afull, 0xe8f6dace3bbf5202ull, 0x98a15243df15a1c3ull, 0x941332568c7dd0aeull}, /* 126 */
    {0xacebc693f6fb6e5bull, 0xa0670a8a98add8c8ull, 0x8f352f181095a3f2ull, 0xfbf949fb0cf977dbull}, /* 127 */
    {0xe1c450ee5fbe2ac5ull, 0x75d2ff98e57fd28bull, 0xde3ee4e46feecadbull, 0x6ba345bdf4492065ull}, /* 128 */
    {0xc9c2c4d9e2a6ebc8ull, 0x576f8e40d91da32bull, 0xceb93a1a31d53087ull, 0x585c725618a8b42aull}, /* 129 */
    {0x6ea371b3298f3c38ull, 0x5ebeeb77b4ba5cbbull, 0xdee93e291221e957ull, 0xddffa8af98f24796ull}, /* 130 */
    {0x9062633b71138f27ull, 0x61b7fcaee8aa6aeaull, 0xd18d2f16db6f8b58ull, 0xe6ab53b334d99873ull}, /* 131 */
    {0xcb811ce49d7a5d05ull, 0x6320194b75ceefe3ull, 0x35843c39334233deull, 0x83ec47f0e1934eacull}, /* 132 */
    {0x297e847ef93e9b48ull, 0xa39a91f813fe9597ull, 0x40ada0566aa70f7eull, 0xc699bea865594636ull}, /* 133 */
    {0x5feee05137269c62ull, 0xaf94f709556623fcull, 0xba5ebeb832c9d6b1ull, 0x647342e61c1422edull}, /* 134 */
    {0x889064b449fb6048ull, 0x8beac3f08d295c82ull, 0x2e5af48802d9065bull, 0x0d9be1dee5fb37cfull}, /* 135 */
    {0x9168e1b5f657416eull, 0x46aedb9f98bb7a02ull, 0x1e5c937c98f942ebull, 0xdfa1a233e3a62b7full}, /* 136 */
    {0x905acca6ffe7adcdull, 0x3aaba2a2bd44c0caull, 0x8fb11ea945cdb123ull, 0x9f18c8bc1bf2a2deull}, /* 137 */
    {0x61497694edc19b48ull, 0x7ebf25b64fc8b41cull, 0x6b94935c475b058bull, 0x6372ff19a2d352f4ull}, /* 138 */
    {0x8dcc210e35eeaa78ull, 0x977ee8f473e3da59ull, 0xf76d06f5ca12101dull, 0x878e47c9b7f8cedaull}, /* 139 */
    {0x270ce72082a79effull, 0x4b0d81558591f8daull, 0x8d1be1ffd55495c6ull, 0xe33662904b731277ull}, /* 140 */
    {0x1a297bc9ec2ae30eull, 0x32399f4f5395079bull, 0x99a6be702c776698ull, 0x5b28f59467531930ull}, /* 141 */
    {0xb5223dd501dafdffull, 0xb7a9ac85d16e049bull, 0xc6cbecc5f9cf1abeull, 0x8afe5d1fc7e2eb8full}, /* 142 */
    {0x47ba0e0b5d3138d3ull, 0x80422c8f303cfa75ull, 0x9ba5d15ca0d100b9ull, 0x9c1bc062c8425f51ull}, /* 143 */
    {0x19bc6c3a9a0a4830ull, 0x5a25a7602caa3116ull, 0x0e90fffa8b160b88ull, 0x566f76de35407717ull}, /* 144 */
    {0x917fc372ceb122b1ull, 0x4b33e8fc43da0114ull, 0xd7c08f3c7ea83753ull, 0x2e909040d677edb9ull}, /* 145 */
    {0xdad2de376798af2aull, 0x6f9694a08822dd04ull, 0x956ce39ef59be1b2ull, 0xaf5ed1429339724bull}, /* 146 */
    {0x8e41499b1e46f524ull, 0xd6c623f37d3c55d2ull, 0x788eb23cbd5b29feull, 0x1a79193b2a3e1242ull}, /* 147 */
    {0x9c96c471b0ccc2d8ull, 0x0f44dac3d2f254cdull, 0xc1e91c79f56387a7ull, 0xe58dc2692d155c0full}, /* 148 */
    {0x6f38002836e47e24ull, 0x13468740b7e8ae49ull, 0x2549832e3639879aull, 0x7d92d2acfa0c3f5eull}, /* 149 */
    {0xe401b5020767b195ull, 0xc69542223e81d4d0ull, 0x160de6dfdb10d4a1ull, 0xdd9d1585f281ecc4ull}, /* 150 */
    {0xb1703ebd856149faull, 0x0f0e02df8c7f2416ull, 0xa490265dd26c8eeeull, 0x9e70bc43da8dfdb1ull}, /* 151 */
    {0x36d2693771675347ull, 0xee5aef3324569a46ull, 0xb448596a8987f522ull, 0x29363159382cd643ull}, /* 152 */
    {0xe998b34dab3d6e7dull, 0x0a262ef7ffe18a21ull, 0xc572075c7c03a1fcull, 0xd9da9733478f10a5ull}, /* 153 */
    {0xa16f1063f2a6f0c5ull, 0x5e94fee9dee33917ull, 0x1ab9599d1d29924cull, 0x2369f476608ad8f3ull}, /* 154 */
    {0x80fba2834785fb45ull, 0xe2c6bfbe1e638aa8ull, 0xdfd4a7e4826f20feull, 0xc4cb56c840780d58ull}, /* 155 */
    {0xa2dcadfa50ee7bb8ull, 0x55cc3c5cbefc7c10ull, 0x6b829bde4812fdfdull, 0x5ad103d81fe73583ull}, /* 156 */
    {0x3e4b1889026c9871ull, 0x630009a6a156180bull, 0xab0dc8bd53365d51ull, 0x27aef4cff00ccc44ull}, /* 157 */
    {0x96c27a604d340c99ull, 0x6f47744957432808ull, 0x09d7c04035e327cfull, 0xb80938585a50e426ull}, /* 158 */
    {0xf58865962c7cd5a6ull, 0x340ab1154367f096ull, 0xf8f1fd741816074cull, 0xd0b58a548f607f35ull}, /* 159 */
    {0x64b42b25dc4df9a9ull, 0x7bf924a481d9c2e6ull, 0xe97b6a96956583bcull, 0x4d8a9d48b8ee4ca1ull}, /* 160 */
    {0x5ec1f2443c6f9ce4ull, 0xd3052f7f7b28cfc6ull, 0x0e049cf6d26acf69ull, 0x5e81e2b06f1a5922ull}, /* 161 */
    {0x96707788327cbc15ull, 0x1f0ab19233d4bae7ull, 0x50889a47c2cb5a13ull, 0x615cfbb4b9d1940bull}, /* 162 */
    {0x33bcac625268652aull, 0x87dc056c2b92761aull, 0x646ead9ba523da65ull, 0x7d325c387221b11aull}, /* 163 */
    {0x69e78ad22a7057bdull, 0xb8ee19aa9fdd8d7cull, 0x78eb0da4d0543c9dull, 0xf2c6b49f1fc2601full}, /* 164 */
    {0xf80b4ac3fb359dcbull, 0x7b805655f5201163ull, 0x7b2acd6daab5aaabull, 0xc33938c4bfd301acull}, /* 165 */
    {0x1738a7c3db7fdf44ull, 0x545d4db8833d607bull, 0xc57c67d8d219f031ull, 0xb2fd9419cc1821b2ull}, /* 166 */
    {0x5bc4962d0a2b7db9ull, 0x65fa0b3418ce1d09ull, 0x724f16bffafdf431ull, 0x3e0e5885cb296b28ull}, /* 167 */
    {0x5627eea5cbcc8fb0ull, 0xadc9f96b312cd54cull, 0x31048b31da3d8af7ull, 0x32d099248b97114aull}, /* 168 */
    {0x2d62846e8d3b7d07ull, 0x67b84898f10dc9f3ull, 0x1b4ca0cd7ebf45c7ull, 0xac9bcb470bb3d276ull}, /* 169 */
    {0xfd5252d7d2ac01adull, 0x71724e2743a98e89ull, 0xd1c9ae34f20131a9ull, 0xed006bb7d17916f6ull}, /* 170 */
    {0xf895bc7b6f95c18eull, 0x93778a58c1c2e232ull, 0x4dba599a4212a9a8ull, 0xd0c6ae10daeca2f9ull}, /* 171 */
    {0x3a0c85379de63555ull, 0x9cc24606a88532cfull, 0xcd9ac4b0f735b812ull, 0x0449e85634248f65ull}, /* 172 */
    {0x80d50b4d606b5c59ull, 0x180b94aa498aa42dull, 0xbb80f5e5993410f7ull, 0x782af38592ce7512ull}, /* 173 */
    {0xc20b16dc2f167110ull, 0xb1a2bafa73354286ull, 0x372819670d3d8138ull, 0x3eab9df0cd5ac6e9ull}, /* 174 */
    {0x177f7d2fc530d4c7ull, 0xcaf9296ef539fd50ull, 0x2841e492278d85d7ull, 0xc4a5c654e4ecb64bull}, /* 175 */
    {0x873a20ec0b00b0e4ull, 0x49a8e97a4eb4bcccull, 0x4a6209ed9a24205eull, 0x16df529b3ee4d13aull}, /* 176 */
    {0xf0e75df240bc7447ull, 0x7c87668cd3839fd9ull, 0x87eb7ad4c526d968ull, 0x056d61e406bade85ull}, /* 177 */
    {0x40750d13108b6d8full, 0xa713858318b31c86ull, 0x0a1594cb0a0e5587ull, 0x3976dd7edff132a5ull}, /* 178 */
    {0xf6ce20f558ffb217ull, 0x6d7b64b713ddfd8dull, 0xd29f124716fe99f4ull, 0x4c9c3dc3bd114cb2ull}, /* 179 */
    {0x15939ea3d62ec039ull, 0x1f13384d733df0e1ull, 0xa6d8fe14801ee720ull, 0xb901048060b3d436ull}, /* 180 */
    {0xd1e0198e820dedb9ull, 0xe09273dd0132b58eull, 0xab1e6fb1876812c3ull, 0xbcfd1a3afd964cceull}, /* 181 */
    {0x2432cd5b5d39cd35ull, 0x25ddf05003212e50ull, 0xb9709a699155d148ull, 0x00670a17cf851694ull}, /* 182 */
    {0xbde6acc9ddfa7800ull, 0xfda1ed738be54f39ull, 0xe5a62de5f494c606ull, 0x5e59514735526fddull}, /* 183 */
    {0xa21068c4e79916d1ull, 0xd730119dd04f35d7ull, 0x005e26065f50a776ull, 0x96a0dbe56f6a6e97ull}, /* 184 */
    {0xed5d21c213d702e8ull, 0x20dd9feb50537dcfull, 0x54ef16c349d85c76ull, 0xac09c0ae8538984dull}, /* 185 */
    {0x2dd79f65b830f36eull, 0xfb6348b8817a138dull, 0xd0caf38027dd6a0dull, 0xe8cdcb01cbd95413ull}, /* 186 */
    {0xc09ce1f99cc29a4dull, 0x031526a42822025bull, 0x1296f5f64d76ce18ull, 0x18d8138954b7e99cull}, /* 187 */
    {0xb006c478ebb1f415ull, 0xb7564ef54a44582full, 0x5cf28636adc31350ull, 0x32bcfdabe947d261ull}, /* 188 */
    {0x63baf5f2cad2483dull, 0xec3c72dd47b3b65eull, 0x45db1d851b9ae0d1ull, 0x4d0f7830923cb758ull}, /* 189 */
    {0xd753e6f8ad3be236ull, 0xea0271be0774936full, 0xa07ae734a64ef1c3ull, 0xe461a0bc60cbcb4bull}, /* 190 */
    {0xd705878b27e5dfecull, 0x262341990f0d15abull, 0x513c5e8531f0bad4ull, 0xa0841b03847f751full}, /* 191 */
    {0x65c47b57a1f65ea2ull, 0x869607337793022dull, 0xc21a4a2a40c3668cull, 0xec49ebec97f5e37eull}, /* 192 */
    {0xcb56b910e3f64844ull, 0xbe8ddd1cb6e7855bull, 0x3cfe9852c7343a04ull, 0x80add8514d7b21d4ull}, /* 193 */
    {0xeec2ccb2c714a295ull, 0xeea12dee889b4edeull, 0x6827159632f8d449ull, 0x9b2775d0c1d6d540ull}, /* 194 */
    {0xf669eaa9262dcaffull, 0xb6e88db9c9d1a5e1ull, 0x18a72c9ff37474ebull, 0x390b228987023395ull}, /* 195 */
    {0x5195824d4daf3703ull, 0xdb16f65980abe270ull, 0xa46276803a4b6b13ull, 0x3a3928ed60484431ull}, /* 196 */
    {0xba06e67cff77a79eull, 0x263965e9e0c6e70dull, 0x58b0f5d2bd99cf88ull, 0xdbdbfef46e7eb903ull}, /* 197 */
    {0xe6b52548ffe01a5aull, 0xd852fbc38878520cull, 0x66d60ed32e68881aull, 0xf648c6d18f1d07bfull}, /* 198 */
    {0xd0191a56594250b9ull, 0x6f93b791e20ab618ull, 0xce69b6f172cbd311ull, 0xa96c91feb72921f5ull}, /* 199 */
    {0xae9b8eb27c6959d2ull, 0xe9e2eebec96f2661ull, 0x6fbba596a2de449eull, 0xa23693bccc8bc1e8ull}, /* 200 */
    {0x998fb0a11928caa5ull, 0xaeeeefda6cf1f4feull, 0x1ee655a53e1bea80ull, 0xd207a98a9090bc70ull}, /* 201 */
    {0x439214cc6da6d598ull, 0x05a21b8660b73739ull, 0x4a944e1993144561ull, 0xc6bfc42d8ab00946ull}, /* 202 */
    {0xb593a8545f7dc0bfull, 0x5032fa30d539071dull, 0xb5584f295eea73bdull, 0x5d8f129f854a2613ull}, /* 203 */
    {0x0119f09f18851b65ull, 0x5ff6172af278c653ull, 0xf8f85883fbd74bf6ull, 0x1173d3cabde1aac9ull}, /* 204 */
    {0xea113ee6484adf7full, 0x7c4c52a3c1f31931ull, 0xb346c3419a485440ull, 0x054fef2e1e17d7ccull}, /* 205 */
    {0x08cfb27d646502a2ull, 0xa429e01eabebc10eull, 0x41063df1ad96fe86ull, 0xb86d5be9910d949eull}, /* 206 */
    {0xc0bf24b4904dbf80ull, 0xe590879961db9a8aull, 0x1c26e216d8fb9a03ull, 0x6b8ea6ec10ae30a5ull}, /* 207 */
    {0x5491bd8e09d41a8full, 0xf9069742b43e294bull, 0x6e6663319217f580ull, 0x9c1ac59d185ade52ull}, /* 208 */
    {0x786f9af86fc6e53cull, 0x7b3e07c3f8a93426ull, 0x429a084003442076ull, 0xcdfead506537b87aull}, /* 209 */
    {0x38fc8971d4fa3975ull, 0xf06bf3be722524f4ull, 0xb9d17cd527ec8937ull, 0x202fb3dda3c4569cull}, /* 210 */
    {0xbbb49477806c0503ull, 0xdb21f448a7ebc4c4ull, 0x49e49e76dd4d0a71ull, 0x5e7c04b82be9a89bull}, /* 211 */
    {0x5b1bc55d650371e3ull, 0x7b2a40a6832ffb37ull, 0x73f123aad99fed9bull, 0x4e05a45abe8e3181ull}, /* 212 */
    {0xc5741f7b90faf849ull, 0xc831e2404d1b95a3ull, 0x76866ee3df34ed0dull, 0x105ba763da8123faull}, /* 213 */
    {0xa964d2904e7fe6e1ull, 0x19999140b250f3a3ull, 0xed6c9acc329fefe5ull, 0xa4e7f99d2a8fcee2ull}, /* 214 */
    {0x12e4e2d148a48355ull, 0x9b9ad1bfd7f372d5ull, 0xa900bf7e428678afull, 0xb080b2cccede8f36ull}, /* 215 */
    {0x9c3d0cd41cbbb41bull, 0xe193483f389f2910ull, 0x3aa74967a5f64c32ull, 0x8270d107a9db49c8ull}, /* 216 */
    {0xa1addaa67114d80full, 0xe9aef8092aaf79dcull, 0x0c9e04a51ca08369ull, 0x3b9c56457ac9cebaull}, /* 217 */
    {0xc83ee37751c3e347ull, 0x9b0032d7f48c7495ull, 0xf7541fb9caa97ebbull, 0xc0ca273875eeba7cull}, /* 218 */
    {0xa2541b0d83d92741ull, 0xf1e34bc598d71b76ull, 0x86e44dc1625dad0dull, 0x3052393e4883fae4ull}, /* 219 */
    {0x10e6bc5c25f6cec2ull, 0x91c9fdb32f871063ull, 0xa8bf7798fd9b395dull, 0x207060efbce43006ull}, /* 220 */
    {0xb4e4a3ea87d150baull, 0xe6e57fd40d231eccull, 0xce6d14a308591ee5ull, 0xa0f6406cce9a71fbull}, /* 221 */
    {0x2816ac34488b0b62ull, 0x947ed7f6256097cdull, 0x45071110b736829aull, 0xcb1df1b72c0fa86aull}, /* 222 */
    {0xb1674ea6b45bbb75ull, 0xe2402939f47e8b8cull, 0x7c72cf7df0bd8229ull, 0x27f87b84046acc45ull}, /* 223 */
    {0x181c2385c239e942ull, 0xae214902ef686c82ull, 0x1a6cb04c81a5333cull, 0xb1ce69617bd49acaull}, /* 224 */
    {0x0fdf1b52131a60d1ull, 0x348cb5aa5b978a39ull, 0x7d62aa71dd026663ull, 0x76cabcd4be026509ull}, /* 225 */
    {0x9d3e96cf5839ddabull, 0xee3e646e19d71a89ull, 0x081ad66aef959d2full, 0xb05516aab8dd8963ull}, /* 226 */
    {0xbf288019a8eccb47ull, 0xd6724f425872c5beull, 0xc7d89a9320528037ull, 0x2b4e135ab3d62f1cull}, /* 227 */
    {0x0740101adda36aeaull, 0x1534c74248423ac4ull, 0xfcfc201630f56665ull, 0xd7ea94caf49f6d85ull}, /* 228 */
    {0xd7e1d2f1c26beec3ull, 0xe5ed5fb90a1c55f2ull, 0xcdaf050a5853ec1dull, 0x892c5e4bd4974d6aull}, /* 229 */
    {0x84cb0dc6a263afe1ull, 0x6f0d40f5c6135bffull, 0xff4ae7da683ec5aeull, 0x30b3628f09fc30a4ull}, /* 230 */
    {0xb0c688444ddbd8e8ull, 0x8cbd726a2f0a88e6ull, 0x494b2ca86e24a223ull, 0x7c801dfa62b97d1eull}, /* 231 */
    {0x7ca76728743c2c03ull, 0xf8593995ec95ad70ull, 0xe1abdf11c4298959ull, 0x603494779720ea5bull}, /* 232 */
    {0x04de268ff5b74726ull, 0xa6bbfa348648801eull, 0x1cdc5b252223a1adull, 0xa75d4cf028677062ull}, /* 233 */
    {0x929b4ebbd605a3daull, 0x2ad8e12fdb290ee5ull, 0x42934b79f2843f4cull, 0xfae8238cd64834feull}, /* 234 */
    {0xd6f53d1ae8b3630full, 0x6c67721e245acac8ull, 0x49043aeb3668ecf2ull, 0x3160276c164e1540ull}, /* 235 */
    {0xc61928b49f2104e4ull, 0x253fe41e1c63e5c5ull, 0x9f98d6b4014d306eull, 0x13dfaf72fdcf71a6ull}, /* 236 */
    {0xaf945a849b2c61a0ull, 0x9d74ad4d121c0d6eull, 0x93b860e43de980a5ull, 0xf0bc3ea7a1c236beull}, /* 237 */
    {0x6f682ed0bcb187caull, 0xbc64b4aff8ba2217ull, 0xe75d1cba164d3750ull, 0xfe1064d0e1787d28ull}, /* 238 */
    {0xf2b4dd9e8ccd4b4full, 0x8807268a61e2e301ull, 0x8dcdb9c3ab9f1866ull, 0x2e271c07f6c0f965ull}, /* 239 */
    {0x790c5975718712bbull, 0x5723abd37b734f43ull, 0xe92af735f75d3efaull, 0x47cb78970d6a9c18ull}, /* 240 */
    {0x8c73e5677b5bbf3dull, 0x19469e6a55d61271ull, 0xcb6d5d587261583eull, 0x46fab1613cd74df2ull}, /* 241 */
    {0x80b885c4c24643aaull, 0x86e5a420609bf215ull, 0xdc649251b443e4aaull, 0xc6153a61b0e760a4ull}, /* 242 */
    {0x0f69d914e2670e81ull, 0x9c9b289e1d20979full, 0x8278f2850fcdd3e8ull, 0xd59e9096706f4320ull}, /* 243 */
    {0x92b4fafc07548cd3ull, 0x285c1feec375faa6ull, 0x55c7dafa6d27342full, 0x58796fc098ccb6feull}, /* 244 */
    {0xdbd330a614a68c4eull, 0xd5093293655e066bull, 0xe2ad85d3ad72a425ull, 0x4d6cb75a35cc01cfull}, /* 245 */
    {0x2fdd3c7f7594f305ull, 0xf9b0da79b4caba62ull, 0x6c61f21d63b2ab47ull, 0xe7af7b9696e2f346ull}, /* 246 */
    {0x5b336b5bfe29da37ull, 0xd1a49e671a9ffcbdull, 0x8dc8cf1ead87f166ull, 0xe0f8900afa78ef05ull}, /* 247 */
    {0xd44463312ab00d2cull, 0x1f24cdb9b7486187ull, 0x25f0786158b0bc99ull, 0x56a5ac3dbeb9ac01ull}, /* 248 */
    {0x5e2e59cbd2364ad6ull, 0x57172b186b1e5422ull, 0xe905ecaa256196a7ull, 0x526e1b87ae5d9d1cull}, /* 249 */
    {0xda4587644026fe52ull, 0xb55b34e1a6ddc909ull, 0x436958b7d7c0857full, 0x28b92bbeab0ad381ull}, /* 250 */
    {0x50b08464c26cfcc0ull, 0xf36408f9174e2c64ull, 0x6a1ef3df2da58ca2ull, 0x7e3d5d1135206a27ull}, /* 251 */
    {0x870447e33fe5af8eull, 0x1b383b0bc3d732d6ull, 0x16b3fefb7863126bull, 0xe3b1c9512b044417ull}, /* 252 */
    {0x34520867cc9d3792ull, 0xa6d37f475a8403dfull, 0x4abae10bffc5bd5full, 0x5b6067e1eb5a3470ull}, /* 253 */
    {0x2ef6541efa28bd57ull, 0xe8809a04d24e3bb3ull, 0x5f84c7b302989252ull, 0x132b2f24ad37c9dfull}, /* 254 */
    {0x92222a12c161befdull, 0xfd4bc545e7d93a18ull, 0xd622ce142c8e5fb7ull, 0x8ef0746e08eb11bcull}, /* 255 */
    {0x085a65011e5efe88ull, 0x2307bb829b53a83full, 0xfda5eac35b28c539ull, 0x5fc735198d2734f6ull}, /* 256 */
    {0x164674dd23d9b2a1ull, 0x6c99502c1eca81ddull, 0xb839a89a563485f4ull, 0x81f1e69362a7ea9eull}, /* 257 */
    {0xe319bc0611243186ull, 0x3fba3b0ca7b32d47ull, 0xac6afafaa5e570c3ull, 0x36e672ddfd94a99full}, /* 258 */
    {0x609da8fdcc7d1c50ull, 0x2385c6d58949acbaull, 0x14ef56e7bf9b84a9ull, 0xec53d7341129499aull}, /* 259 */
    {0x66d0a72ce806709cull, 0x6063bc6a41716dcbull, 0x651818ba74697fd0ull, 0xd0513ef53c1ac155ull}, /* 260 */
    {0x23aac90c2786f045ull, 0xbd0203c8897563f7ull, 0x0932c725004e751full, 0xe06f7ab95280482full}, /* 261 */
    {0xc35fc179f9efe9d9ull, 0xc56d4ba8f8eafc98ull, 0xe4dfe0e60a89322bull, 0xfd14833c9de30db7ull}, /* 262 */
    {0x778020bf5b9590e2ull, 0xb51f9945344a14f9ull, 0x347da36114122f5bull, 0x14479407ef0783d8ull}, /* 263 */
    {0x884f1dd36d80189full, 0xe083d9e9db3936e9ull, 0x1af48d290f8a774full, 0xe21b1b80d9a4bb66ull}, /* 264 */
    {0xc45de3035de06112ull, 0x53ab4ccbd5569919ull, 0x8868b04370c533e8ull, 0x0c85b7bdd1c03515ull}, /* 265 */
    {0x041eba202be0fecfull, 0x7f25aa60dfb5fecfull, 0xd22f0d026dd1e2cbull, 0x5af86baf41d4910dull}, /* 266 */
    {0xa188d7bedc5696abull, 0x88186b39922e4c21ull, 0x956dad1515bdd342ull, 0x67ddd0e3f4bc0975ull}, /* 267 */
    {0xb155a747b199d90dull, 0xe3388a1bf3cfe91aull, 0x04219a754cb76daaull, 0x3f47738490cebbb5ull}, /* 268 */
    {0xef23935dbbb17870ull, 0xc1d63aeb746a717eull, 0x378bb0bd1e979d77ull, 0xa55df69859a63e09ull}, /* 269 */
    {0xbe9025c65e7e916bull, 0x6ae89c7282fe9755ull, 0x351acf9d1d0a038dull, 0x277adfe819a68f88ull}, /* 270 */
    {0xdee1f5290e6c4ac7ull, 0x259524a7d61ebd01ull, 0xe5b0868dae926923ull, 0x22b5b7a0ac682049ull}, /* 271 */
    {0x357748ef75bc66ffull, 0xf61993ddb358f230ull, 0xa3c2c491cd08b25cull, 0xe5c5598429706d04ull}, /* 272 */
    {0xb565bd43eb8d9395ull, 0x91cc16c8c1448285ull, 0xc289f85a74735865ull, 0x6f72c165de1fe59cull}, /* 273 */
    {0x177996959fa51c18ull, 0x24af89f26cd56fecull, 0xb001f7b06d41291cull, 0x766ebe1db21bf746ull}, /* 274 */
    {0x32f97a166914ffeeull, 0xea66213074bcfa56ull, 0xfae6264e69fe19dcull, 0x4d3284c912f722ebull}, /* 275 */
    {0x08248d67fdc2e49eull, 0x62f9a6306d79c2bcull, 0xd8fd7f0fbff52a6bull, 0x1b157223cfb74947ull}, /* 276 */
    {0x3237ef9d52e42ae3ull, 0xadde06ac0e0ae18eull, 0x889872550d64ceb0ull, 0xf6ff24683f536186ull}, /* 277 */
    {0x54ca31ec672b99e7ull, 0xb3bd72381a6ecbf4ull, 0x2eb2398fd389df55ull, 0x0a5cade13ee304f8ull}, /* 278 */
    {0xe389d5e818a47754ull, 0xbe27316ad59172f3ull, 0x1a582f9e43db08a7ull, 0xa9632521fcf2ec57ull}, /* 279 */
    {0x6355e93bea28fdd4ull, 0xadced17b2f510352ull, 0x659c3757531b1342ull, 0x74eac86f40edb2bfull}, /* 280 */
    {0xe09ad94ec7c76b2dull, 0x13417aedcf19000cull, 0x514993ada6a3e4b9ull, 0x5b7e7bd4e00c9535ull}, /* 281 */
    {0x2e2a45eddb60b36eull, 0x0827c2cf30075a15ull, 0x94c2d0c557bdd4a6ull, 0x2f6da657fd3cc128ull}, /* 282 */
    {0x61e49378241115dfull, 0xfa344100d5f40e13ull, 0x0541f69703b6f800ull, 0xdefefcb65c80b097ull}, /* 283 */
    {0xd3cb4196df17c096ull, 0xd6497dd3788d5a7aull, 0xfa51ecfcf81d34b1ull, 0x3306729834fa1eacull}, /* 284 */
    {0x81b5385c4d4a3913ull, 0x2c2894a18233242eull, 0x682a077e1b3f3f8cull, 0x7d913030c7969b8eull}, /* 285 */
    {0x3691d5614a91e080ull, 0xa1af896d1204ad11ull, 0x8052e512194c75a4ull, 0x38763c18f2508c82ull}, /* 286 */
    {0x8c5854dca5cb392full, 0x2b87e8ce0ac47a14ull, 0x8afb3c4728b41027ull, 0x0fba0c997ae86b96ull}, /* 287 */
    {0xb82cf3b7b2fd1a5eull, 0xddb7d50e6dcf7f08ull, 0xcbd33c4997fba846ull, 0x05583cb961f88543ull}, /* 288 */
    {0xac293b3a3b5a8a5bull, 0xae352b17c3171bb0ull, 0x55fde2b2fcd21ce9ull, 0xe2cb655d35dadd03ull}, /* 289 */
    {0x72319606e0a7e275ull, 0xfe5174b2327e246bull, 0xea3b1158a754ab00ull, 0xb3f3bd2b919b4ee7ull}, /* 290 */
    {0x4f7e4b690f932e18ull, 0x5a94c3078b484533ull, 0x0227af9ee3d2e77aull, 0xe80cd8a8e80bdc61ull}, /* 291 */
    {0xcdda0cbeab50dedaull, 0xebe76c9cd6a2fa0bull, 0xe4f21d927fcfa040ull, 0xa80fed722acfa5d7ull}, /* 292 */
    {0x0bcf695c5a35669eull, 0x1e419f25e4d20fb8ull, 0xd2e67719646afe04ull, 0xd1dcf48e487e4adbull}, /* 293 */
    {0xe06150a206a5bd24ull, 0xcfe4daa0fdb4fc00ull, 0x34bf41bd9177d82eull, 0xecf7e6e5a53b7bb6ull}, /* 294 */
    {0x6a7f5aae9bcd303aull, 0x084fff6e4c05a3aaull, 0x646cb1b31bd28ae2ull, 0x20e3664c11099a7cull}, /* 295 */
    {0x68733e027b759adaull, 0x453ad4a82cc36bcbull, 0x4e2c31224f2ce2e2ull, 0x4271a60c469ffff8ull}, /* 296 */
    {0x9ab0c2968edd9093ull, 0x708c48dc7e9d096aull, 0x88e12bbaaaa0dba6ull, 0x887e8446eedaab1full}, /* 297 */
    {0xddde281ab2901da9ull, 0x99f53b3ced5f9a38ull, 0x671d707e7f7332aaull, 0xefb0264c1bb21268ull}, /* 298 */
    {0x3e4ba2960d014a07ull, 0x966fe1b061833ecbull, 0xb0e510752b7c1850ull, 0x3b37983dbb2ba218ull}, /* 299 */
    {0xc086b0ab2471544cull, 0x8e9b7f04646d74bcull, 0x58ff8e603847f9f8ull, 0x4926e673cb3ab6f3ull}, /* 300 */
};

/* The same for lengths around block (1024) and stripe (64) boundaries, up to
 * the cache's 4 MiB chunk and one byte past it. */
static const struct {
    size_t n;
    uint64_t h[4];
} long_vectors[] = {
    {319, {0x2cbd2803f8fe9d3dull, 0x5423f6b7d2140bffull, 0xc0d92ae85e7a6822ull, 0x2690391fdaa4edc4ull}},
    {320, {0x6f5f221eedc15e42ull, 0x4447e73158b22917ull, 0xb2221e7588a31e77ull, 0x72be148a97e44155ull}},
    {321, {0xead4b05f935ffde3ull, 0xbd5f91ce7843d69cull, 0x7bb831841a3b2508ull, 0xb55a0956ca01bf18ull}},
    {511, {0x2bcc97d5d76f9c66ull, 0xa95fd8c111726b49ull, 0x00886ca3921fbafdull, 0x1fb2dbee74dd345cull}},
    {512, {0x14552dbe8355361dull, 0x8a014a7234c18732ull, 0xbe96bfecd655414cull, 0xc4d3a0e4c982ed15ull}},
    {513, {0xde865dbd2167490dull, 0x65dbeb007216390full, 0x3009a886b0fc82acull, 0x5f9204a53d94f79dull}},
    {1023, {0xf0af0ffdaa17cef0ull, 0x2304123b6f1f4eb3ull, 0x4af2673cb8ad3578ull, 0xf9f47bce28a48f36ull}},
    {1024, {0xd1e23a588641df5cull, 0xb01002604ee41e62ull, 0x3b03a9c18e0aae71ull, 0xf84ca42ff62a8eceull}},
    {1025, {0xad702c245b7bbcadull, 0xb0be00868beb4f3cull, 0x5c0fa3f6377f648full, 0x28231010bd7a34afull}},
    {1087, {0xecc01405482477cfull, 0x82aa158aa217fb0bull, 0xf180c38ef234cfd2ull, 0xefb8ba9f2cbe6a00ull}},
    {1088, {0x55ce8b19897926d5ull, 0xfe5348e98c72ed61ull, 0xe07db8a07810ba4dull, 0x1c4864e62aab9fc3ull}},
    {1089, {0x02a93a7ff8d5a2a6ull, 0x9145e2638d18fa2bull, 0xc1647f6d65535f90ull, 0xa288c55f4b612767ull}},
    {2047, {0x9513dd1d8cd58fe9ull, 0x5b894ab5e49a64ffull, 0x5cd37c6f8397c8f3ull, 0x99c16d9d12c54a26ull}},
    {2048, {0x8f191c89a8f6cfcdull, 0x5c0750a95eda9006ull, 0x640b2015c71502ebull, 0x0b6c6b1fe4304e2aull}},
    {2049, {0x888dbc1862e683c2ull, 0xd087f5cc939a2aabull, 0x6635e2b9602b02feull, 0x98269700d739f4d0ull}},
    {3000, {0x30a8a17014f4ed2eull, 0xf87032d745265163ull, 0xd30dc741886cda70ull, 0x0e08b6cd8eaf7e39ull}},
    {4096, {0xde477e9d79bf8788ull, 0xc23d264747e12521ull, 0xc7653298aedcda0bull, 0xb21a620435b8247cull}},
    {16401, {0x0040b6a6d3db4e5eull, 0x1b2693c6dd0f36dfull, 0x6220861873b85922ull, 0xb075399b78cb80deull}},
    {65536, {0x7b7037b321ff8956ull, 0x843007eb51ec864eull, 0xe994552d16e87ff6ull, 0xb8c001d07348d4f0ull}},
    {100000, {0x7c4272219900b6d7ull, 0xe0a7a6e46f8856faull, 0x5046f4b31c934d0dull, 0xe99a6adccf0d77abull}},
    {1048576, {0x2f4a3255033d6ee1ull, 0xcbb98d5c2a144d9cull, 0xa7e3a24a5eaf0426ull, 0x1f332e91e5281468ull}},
    {4194303, {0x99c9e93125c87cfeull, 0xa8b6a1edcbb9e478ull, 0xb36dfc45528a84d7ull, 0x63dd97ff0d79910aull}},
    {4194304, {0xd2a4b00f48eb9f91ull, 0x78ad64bef9ac8936ull, 0x74c4d1fcb18a28c0ull, 0x92f0b354ffed8012ull}},
    {4194305, {0xd51568c68f8159acull, 0xec5ff8a3e2c58a1aull, 0x060e841bb2cc700cull, 0xeadfa9cbcca1fce0ull}},
};

#define PATTERN_SIZE ((4u << 20) + 1)
static uint8_t *pattern;

/* The generator the vectors were made with: the high byte of a 64-bit LCG. */
static void fill_pattern(uint8_t *b, size_t n) {
    uint64_t x = 0x0123456789abcdefull;
    for (size_t i = 0; i < n; i++) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        b[i] = (uint8_t)(x >> 56);
    }
}

static uint32_t rng_state = 2463534242u;
static uint32_t rng(void) { /* xorshift32: deterministic on every target */
    uint32_t x = rng_state;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    return rng_state = x;
}

static int check_hash(uint64_t got, uint64_t want, size_t n, int seed_index, const char *what) {
    CHECK(got == want);
    if (got != want) {
        fprintf(stderr, "  %s: len %zu seed #%d: got %016llx want %016llx\n", what, n, seed_index,
                (unsigned long long)got, (unsigned long long)want);
        return 1;
    }
    return 0;
}

static void test_known(void) {
    /* The published hash of the empty input. */
    CHECK(ok_xxh3_64("", 0, 0) == 0x2D06800538D394C2ull);
    CHECK(ok_xxh3_64(NULL, 0, 0) == 0x2D06800538D394C2ull);
    CHECK(ok_xxh3_64("abc", 3, 0) == 0x78AF5F94892F3950ull);
    ok_xxh3_state s;
    ok_xxh3_reset(&s, 0);
    ok_xxh3_update(&s, NULL, 0);
    CHECK(ok_xxh3_digest(&s) == 0x2D06800538D394C2ull);
}

static void test_state_size(void) {
    CHECK_EQ_INT(ok_xxh3_state_size(), sizeof(ok_xxh3_state));
    CHECK_EQ_INT(ok_xxh3_state_size(), 600); /* same on wasm32 and native: JS relies on it */
    CHECK_EQ_INT(ok_xxh3_state_size() % 8, 0);
}

static void test_canonical(void) {
    uint8_t b[8];
    ok_xxh3_canonical(0x0102030405060708ull, b);
    static const uint8_t want[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    CHECK(memcmp(b, want, 8) == 0);
}

/* One-shot and single-update streaming, every length 0..300, every seed. */
static void test_short_vectors(void) {
    ok_xxh3_state s;
    for (size_t n = 0; n <= 300; n++) {
        for (int k = 0; k < 4; k++) {
            check_hash(ok_xxh3_64(pattern, n, seeds[k]), short_vectors[n][k], n, k, "one-shot");
            ok_xxh3_reset(&s, seeds[k]);
            ok_xxh3_update(&s, pattern, n);
            check_hash(ok_xxh3_digest(&s), short_vectors[n][k], n, k, "stream");
        }
    }
}

static void test_long_vectors(void) {
    ok_xxh3_state s;
    for (size_t i = 0; i < sizeof long_vectors / sizeof long_vectors[0]; i++) {
        size_t n = long_vectors[i].n;
        for (int k = 0; k < 4; k++) {
            check_hash(ok_xxh3_64(pattern, n, seeds[k]), long_vectors[i].h[k], n, k, "one-shot");
            ok_xxh3_reset(&s, seeds[k]);
            ok_xxh3_update(&s, pattern, n);
            check_hash(ok_xxh3_digest(&s), long_vectors[i].h[k], n, k, "stream");
        }
    }
}

/* Every two-way split of every message up to 600 bytes (the 240-byte
 * short/long switch, the 256-byte buffer, stripe and buffer refills), and
 * every three-way split of a 300-byte one. */
static void test_every_split(void) {
    ok_xxh3_state s;
    int mismatches = 0;
    for (size_t n = 0; n <= 600; n++) {
        uint64_t seed = seeds[n % 4];
        uint64_t want = ok_xxh3_64(pattern, n, seed);
        for (size_t cut = 0; cut <= n; cut++) {
            ok_xxh3_reset(&s, seed);
            ok_xxh3_update(&s, pattern, cut);
            ok_xxh3_update(&s, pattern + cut, n - cut);
            if (ok_xxh3_digest(&s) != want && mismatches++ < 5)
                fprintf(stderr, "  split: len %zu cut %zu\n", n, cut);
        }
    }
    CHECK_EQ_INT(mismatches, 0);
    mismatches = 0;
    const size_t n = 300;
    uint64_t want = ok_xxh3_64(pattern, n, 0);
    for (size_t a = 0; a <= n; a++) {
        for (size_t b = a; b <= n; b++) {
            ok_xxh3_reset(&s, 0);
            ok_xxh3_update(&s, pattern, a);
            ok_xxh3_update(&s, pattern + a, b - a);
            ok_xxh3_update(&s, pattern + b, n - b);
            mismatches += ok_xxh3_digest(&s) != want;
        }
    }
    CHECK_EQ_INT(mismatches, 0);
}

/* Chunk sizes that hit every branch of update: empty, tiny, stripe and
 * buffer sized (+-1), and large. */
static size_t random_chunk(void) {
    static const size_t edges[] = {0, 1, 2, 63, 64, 65, 127, 128, 255, 256, 257, 1023, 1024, 1025};
    uint32_t r = rng();
    switch (r % 4) {
    case 0: return edges[(r >> 8) % (sizeof edges / sizeof edges[0])];
    case 1: return (r >> 8) % 300;
    case 2: return (r >> 8) % 5000;
    default: return (r >> 8) % 600000;
    }
}

static void test_random_splits(void) {
    ok_xxh3_state s;
    int mismatches = 0;
    /* The 4 MiB + 1 vector, 6 times in random pieces, each seed. */
    for (int trial = 0; trial < 6; trial++) {
        int k = trial % 4;
        size_t n = long_vectors[sizeof long_vectors / sizeof long_vectors[0] - 1].n;
        uint64_t want = long_vectors[sizeof long_vectors / sizeof long_vectors[0] - 1].h[k];
        ok_xxh3_reset(&s, seeds[k]);
        for (size_t off = 0; off < n;) {
            size_t c = random_chunk();
            if (c > n - off) c = n - off;
            ok_xxh3_update(&s, pattern + off, c);
            off += c;
        }
        mismatches += ok_xxh3_digest(&s) != want;
    }
    /* Mid-size messages, many trials, small pieces. */
    for (int trial = 0; trial < 3000; trial++) {
        size_t n = rng() % 5000;
        uint64_t seed = seeds[trial % 4];
        uint64_t want = ok_xxh3_64(pattern, n, seed);
        ok_xxh3_reset(&s, seed);
        for (size_t off = 0; off < n;) {
            size_t c = rng() % (trial % 2 ? 70 : 700);
            if (c > n - off) c = n - off;
            ok_xxh3_update(&s, pattern + off, c);
            off += c;
        }
        mismatches += ok_xxh3_digest(&s) != want;
    }
    CHECK_EQ_INT(mismatches, 0);
    /* Byte at a time across two blocks plus a bit. */
    ok_xxh3_reset(&s, seeds[1]);
    for (size_t i = 0; i < 2049; i++) ok_xxh3_update(&s, pattern + i, 1);
    CHECK(ok_xxh3_digest(&s) == ok_xxh3_64(pattern, 2049, seeds[1]));
}

/* digest does not disturb the state: a running checksum read after every
 * piece equals the one-shot hash of the prefix so far. */
static void test_digest_midstream(void) {
    ok_xxh3_state s;
    int mismatches = 0;
    ok_xxh3_reset(&s, seeds[3]);
    size_t off = 0;
    while (off < 20000) {
        size_t c = rng() % 900;
        ok_xxh3_update(&s, pattern + off, c);
        off += c;
        mismatches += ok_xxh3_digest(&s) != ok_xxh3_64(pattern, off, seeds[3]);
        mismatches += ok_xxh3_digest(&s) != ok_xxh3_64(pattern, off, seeds[3]); /* twice */
    }
    CHECK_EQ_INT(mismatches, 0);
    /* reset starts over, with another seed. */
    ok_xxh3_reset(&s, 0);
    ok_xxh3_update(&s, "abc", 3);
    CHECK(ok_xxh3_digest(&s) == 0x78AF5F94892F3950ull);
}

/* The input need not be aligned (SIMD loads are unaligned ones). */
static void test_unaligned(void) {
    enum { N = 5000 };
    uint8_t *b = malloc(N + 16);
    CHECK(b != NULL);
    if (!b) return;
    int mismatches = 0;
    for (size_t shift = 1; shift < 16; shift++) {
        memcpy(b + shift, pattern, N);
        for (size_t n = 0; n <= N; n += 97) {
            mismatches +=
                ok_xxh3_64(b + shift, n, seeds[shift % 4]) != ok_xxh3_64(pattern, n, seeds[shift % 4]);
        }
    }
    CHECK_EQ_INT(mismatches, 0);
    free(b);
}

/* The point of the checksum: damage is seen. Every single-bit flip of a
 * 300-byte message and byte flips across a 4 MiB chunk (first byte, each
 * stripe of the first and last block, last byte) change the hash. */
static void test_flip_detected(void) {
    int unchanged = 0;
    uint8_t m[300];
    memcpy(m, pattern, sizeof m);
    uint64_t h = ok_xxh3_64(m, sizeof m, 0);
    for (size_t i = 0; i < sizeof m * 8; i++) {
        m[i / 8] ^= (uint8_t)(1u << (i % 8));
        unchanged += ok_xxh3_64(m, sizeof m, 0) == h;
        m[i / 8] ^= (uint8_t)(1u << (i % 8));
    }
    CHECK_EQ_INT(unchanged, 0);
    CHECK(ok_xxh3_64(m, sizeof m, 0) == h);

    const size_t n = 4u << 20;
    h = ok_xxh3_64(pattern, n, 0);
    static const size_t spots[] = {0,
                                   1,
                                   63,
                                   64,
                                   1023,
                                   1024,
                                   2000000,
                                   (4u << 20) - 1025,
                                   (4u << 20) - 64,
                                   (4u << 20) - 65,
                                   (4u << 20) - 1};
    unchanged = 0;
    for (size_t i = 0; i < sizeof spots / sizeof spots[0]; i++) {
        pattern[spots[i]] ^= 0x5a;
        unchanged += ok_xxh3_64(pattern, n, 0) == h;
        pattern[spots[i]] ^= 0x5a;
    }
    CHECK_EQ_INT(unchanged, 0);
    CHECK(ok_xxh3_64(pattern, n, 0) == h);
    /* Length is part of the hash too: a trailing zero byte is not ignored. */
    uint8_t z[257] = {0};
    CHECK(ok_xxh3_64(z, 256, 0) != ok_xxh3_64(z, 257, 0));
}

int main(void) {
    pattern = malloc(PATTERN_SIZE);
    CHECK(pattern != NULL);
    if (!pattern) return CHECK_DONE();
    fill_pattern(pattern, PATTERN_SIZE);
    test_known();
    test_state_size();
    test_canonical();
    test_short_vectors();
    test_long_vectors();
    test_every_split();
    test_random_splits();
    test_digest_midstream();
    test_unaligned();
    test_flip_detected();
    free(pattern);
    return CHECK_DONE();
}
