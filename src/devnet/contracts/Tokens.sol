// SPDX-License-Identifier: MIT
// The devnet's and the tests' ERC-20 tokens (compiled with solcjs by src/devnet/compile.ts): a plain
// token of any decimals with string metadata, one answering bytes32 symbol and name (as MKR and SAI
// do), one whose symbol() and name() revert, and one whose decimals() reverts. Anybody may mint, so
// traders can be funded and supplies changed mid-chain.
pragma solidity ^0.8.20;

abstract contract BaseToken {
    uint256 public totalSupply;
    mapping(address => uint256) public balanceOf;
    mapping(address => mapping(address => uint256)) public allowance;

    event Transfer(address indexed from, address indexed to, uint256 value);
    event Approval(address indexed owner, address indexed spender, uint256 value);

    function mint(address to, uint256 value) external {
        totalSupply += value;
        balanceOf[to] += value;
        emit Transfer(address(0), to, value);
    }

    function burn(uint256 value) external {
        balanceOf[msg.sender] -= value;
        totalSupply -= value;
        emit Transfer(msg.sender, address(0), value);
    }

    function approve(address spender, uint256 value) external returns (bool) {
        allowance[msg.sender][spender] = value;
        emit Approval(msg.sender, spender, value);
        return true;
    }

    function transfer(address to, uint256 value) external returns (bool) {
        _move(msg.sender, to, value);
        return true;
    }

    function transferFrom(address from, address to, uint256 value) external returns (bool) {
        uint256 allowed = allowance[from][msg.sender];
        // An unlimited allowance is never spent down (as OpenZeppelin's ERC20 does).
        if (allowed != type(uint256).max) allowance[from][msg.sender] = allowed - value;
        _move(from, to, value);
        return true;
    }

    function _move(address from, address to, uint256 value) private {
        balanceOf[from] -= value;
        balanceOf[to] += value;
        emit Transfer(from, to, value);
    }
}

contract TestToken is BaseToken {
    string public name;
    string public symbol;
    uint8 public immutable decimals;

    constructor(string memory name_, string memory symbol_, uint8 decimals_) {
        name = name_;
        symbol = symbol_;
        decimals = decimals_;
    }
}

contract Bytes32Token is BaseToken {
    bytes32 public name;
    bytes32 public symbol;
    uint8 public immutable decimals;

    constructor(bytes32 name_, bytes32 symbol_, uint8 decimals_) {
        name = name_;
        symbol = symbol_;
        decimals = decimals_;
    }
}

contract NoMetadataToken is BaseToken {
    uint8 public immutable decimals;

    constructor(uint8 decimals_) {
        decimals = decimals_;
    }

    function symbol() external pure returns (string memory) {
        revert("no symbol");
    }

    function name() external pure returns (string memory) {
        revert("no name");
    }
}

contract NoDecimalsToken is BaseToken {
    string public name = "No Decimals";
    string public symbol = "NODEC";

    function decimals() external pure returns (uint8) {
        revert("no decimals");
    }
}
